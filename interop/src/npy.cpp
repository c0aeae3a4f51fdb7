#include "actorflow/interop/npy.hpp"

#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <vector>

namespace actorflow::interop {

namespace {

constexpr std::string_view magic = "\x93NUMPY";

/// Bytes before the header: magic, version, header length (2 bytes in
/// format 1.0, 4 in 2.0 and 3.0).
constexpr size_t prefix_v1 = magic.size() + 2 + 2;
constexpr size_t prefix_v2 = magic.size() + 2 + 4;

/// numpy's type codes of the dtypes it shares with us (little-endian, or
/// `|` where byte order does not apply).
struct npy_code {
  core::dtype type;
  std::string_view descr;
};

constexpr std::array<npy_code, 14> npy_codes{{
  {core::dtype::bool_, "|b1"},
  {core::dtype::int8, "|i1"},
  {core::dtype::uint8, "|u1"},
  {core::dtype::int16, "<i2"},
  {core::dtype::uint16, "<u2"},
  {core::dtype::int32, "<i4"},
  {core::dtype::uint32, "<u4"},
  {core::dtype::int64, "<i8"},
  {core::dtype::uint64, "<u8"},
  {core::dtype::float16, "<f2"},
  {core::dtype::float32, "<f4"},
  {core::dtype::float64, "<f8"},
  {core::dtype::complex64, "<c8"},
  {core::dtype::complex128, "<c16"},
}};

std::optional<core::dtype> dtype_of_descr(std::string_view descr) {
  // '=' (native order) is little-endian on every machine we build for; a
  // one-byte type may carry any order mark.
  std::string d{descr};
  if (!d.empty() && d[0] == '=')
    d[0] = '<';
  if (d.size() == 3 && d[2] == '1' && (d[0] == '<' || d[0] == '>'))
    d[0] = '|';
  for (const auto& c : npy_codes)
    if (c.descr == d)
      return c.type;
  return std::nullopt;
}

/// A strict reader of the header's dict literal: `{'key': value, ...}`
/// with string, True/False and tuple-of-integer values.
class header_parser {
public:
  explicit header_parser(std::string_view text) : text_(text) {
    // nop
  }

  core::status parse(std::string* descr, bool* fortran_order,
                     std::vector<int64_t>* dims) {
    bool seen_descr = false;
    bool seen_order = false;
    bool seen_shape = false;
    skip_space();
    if (!take('{'))
      return fail("expected '{'");
    for (;;) {
      skip_space();
      if (take('}'))
        break;
      std::string key;
      ACTORFLOW_RETURN_IF_ERROR(read_string(&key));
      skip_space();
      if (!take(':'))
        return fail("expected ':' after '" + key + "'");
      skip_space();
      if (key == "descr") {
        ACTORFLOW_RETURN_IF_ERROR(read_string(descr));
        seen_descr = true;
      } else if (key == "fortran_order") {
        ACTORFLOW_RETURN_IF_ERROR(read_bool(fortran_order));
        seen_order = true;
      } else if (key == "shape") {
        ACTORFLOW_RETURN_IF_ERROR(read_tuple(dims));
        seen_shape = true;
      } else {
        return fail("unknown key '" + key + "'");
      }
      skip_space();
      if (take(','))
        continue;
      skip_space();
      if (take('}'))
        break;
      return fail("expected ',' or '}'");
    }
    skip_space();
    if (pos_ != text_.size())
      return fail("text after the dict");
    if (!seen_descr || !seen_order || !seen_shape)
      return fail("the header needs 'descr', 'fortran_order' and 'shape'");
    return core::status::ok();
  }

private:
  core::status fail(const std::string& what) const {
    return core::invalid_argument_error("malformed .npy header at byte ", pos_,
                                        ": ", what);
  }

  void skip_space() {
    while (
      pos_ < text_.size()
      && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t'))
      ++pos_;
  }

  bool take(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool take(std::string_view word) {
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  core::status read_string(std::string* out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return fail("expected a quoted string");
    char quote = text_[pos_++];
    auto end = text_.find(quote, pos_);
    if (end == std::string_view::npos)
      return fail("unterminated string");
    out->assign(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return core::status::ok();
  }

  core::status read_bool(bool* out) {
    if (take(std::string_view{"True"}))
      *out = true;
    else if (take(std::string_view{"False"}))
      *out = false;
    else
      return fail("expected True or False");
    return core::status::ok();
  }

  core::status read_tuple(std::vector<int64_t>* out) {
    out->clear();
    if (!take('('))
      return fail("expected '(' for the shape");
    for (;;) {
      skip_space();
      if (take(')'))
        return core::status::ok();
      int64_t dim = 0;
      size_t digits = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (dim > (std::numeric_limits<int64_t>::max() - 9) / 10)
          return fail("dimension too large");
        dim = dim * 10 + (text_[pos_++] - '0');
        ++digits;
      }
      if (digits == 0)
        return fail("expected a dimension");
      if (out->size() == core::shape::max_rank)
        return fail("more than " + std::to_string(core::shape::max_rank)
                    + " dimensions");
      out->push_back(dim);
      skip_space();
      if (take(','))
        continue;
      skip_space();
      if (take(')'))
        return core::status::ok();
      return fail("expected ',' or ')' in the shape");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

uint32_t read_le(std::string_view bytes, size_t at, size_t n) {
  uint32_t x = 0;
  for (size_t i = 0; i < n; ++i)
    x |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i]))
         << (8 * i);
  return x;
}

} // namespace

core::status encode_npy(const core::tensor& t, std::string* out) {
  std::string_view descr;
  for (const auto& c : npy_codes)
    if (c.type == t.dtype())
      descr = c.descr;
  if (descr.empty())
    return core::unimplemented_error("numpy has no .npy code for dtype ",
                                     core::to_string(t.dtype()));
  std::string dict = "{'descr': '" + std::string{descr}
                     + "', 'fortran_order': False, 'shape': (";
  // As numpy writes it: (), (n,), (a, b).
  for (int i = 0; i < t.shape().rank(); ++i)
    dict += (i ? ", " : "") + std::to_string(t.shape().dim(i));
  dict += t.shape().rank() == 1 ? ",), }" : "), }";
  // The header ends in '\n' and is padded with spaces so that the data
  // start at a multiple of 64 bytes.
  bool v1 = dict.size() + 1 + prefix_v1 <= 0xffff;
  size_t prefix = v1 ? prefix_v1 : prefix_v2;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  out->clear();
  out->reserve(total + t.bytes());
  out->append(magic);
  out->push_back(v1 ? 1 : 2);
  out->push_back(0);
  for (size_t i = 0; i < (v1 ? 2 : 4); ++i)
    out->push_back(static_cast<char>((dict.size() >> (8 * i)) & 0xff));
  out->append(dict);
  out->append(static_cast<const char*>(t.raw_data()), t.bytes());
  return core::status::ok();
}

core::status decode_npy(std::string_view bytes, core::tensor* out) {
  if (bytes.size() < prefix_v1 || bytes.substr(0, magic.size()) != magic)
    return core::invalid_argument_error(
      "not a .npy file (no \\x93NUMPY magic)");
  auto major = static_cast<unsigned char>(bytes[magic.size()]);
  if (major < 1 || major > 3)
    return core::invalid_argument_error("unsupported .npy format version ",
                                        int{major}, " (1, 2 and 3 are known)");
  size_t prefix = major == 1 ? prefix_v1 : prefix_v2;
  if (bytes.size() < prefix)
    return core::invalid_argument_error(".npy file cut short in its prefix");
  size_t header_len
    = read_le(bytes, magic.size() + 2, prefix - magic.size() - 2);
  if (header_len > bytes.size() - prefix)
    return core::invalid_argument_error(".npy header of ", header_len,
                                        " bytes runs past the end of the ",
                                        bytes.size(), "-byte file");
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> dims;
  header_parser parser{bytes.substr(prefix, header_len)};
  ACTORFLOW_RETURN_IF_ERROR(parser.parse(&descr, &fortran_order, &dims));
  auto type = dtype_of_descr(descr);
  if (!type)
    return core::invalid_argument_error(
      ".npy dtype '", descr,
      "' is not supported (little-endian bool, int, uint, float and "
      "complex are)");
  if (fortran_order)
    return core::invalid_argument_error(
      ".npy array in Fortran order is not supported; save "
      "np.ascontiguousarray(a)");
  // Count the bytes the shape needs without overflowing before anything is
  // allocated.
  size_t elements = 1;
  for (auto d : dims) {
    auto n = static_cast<size_t>(d);
    if (n != 0 && elements > std::numeric_limits<size_t>::max() / n)
      return core::invalid_argument_error(".npy shape is too large");
    elements *= n;
  }
  auto data = bytes.substr(prefix + header_len);
  if (elements > data.size() / core::size_of(*type)
      || elements * core::size_of(*type) != data.size())
    return core::invalid_argument_error(
      ".npy data of ", data.size(), " bytes does not fit the shape ",
      core::shape{dims}.to_string(), " of ", core::to_string(*type));
  // (Checked again: a shape with a 0 among huge dimensions holds no bytes
  // but is still no tensor; make says so rather than throw.)
  core::tensor t;
  auto st = core::tensor::make(core::host_allocator(), *type,
                               core::shape{std::move(dims)}, &t);
  if (!st.is_ok())
    return core::invalid_argument_error(".npy shape: ", st.message());
  if (!data.empty())
    std::memcpy(t.raw_mutable_data(), data.data(), data.size());
  *out = std::move(t);
  return core::status::ok();
}

core::status save_npy(const core::tensor& t, const std::string& path) {
  std::string bytes;
  ACTORFLOW_RETURN_IF_ERROR(encode_npy(t, &bytes));
  std::ofstream f{path, std::ios::binary | std::ios::trunc};
  if (!f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()))
      || !f.flush())
    return core::unavailable_error("cannot write ", path, ": ",
                                   std::strerror(errno));
  return core::status::ok();
}

core::status load_npy(const std::string& path, core::tensor* out) {
  std::ifstream f{path, std::ios::binary};
  if (!f)
    return core::not_found_error("cannot open ", path, ": ",
                                 std::strerror(errno));
  std::string bytes{std::istreambuf_iterator<char>{f},
                    std::istreambuf_iterator<char>{}};
  if (f.bad())
    return core::unavailable_error("cannot read ", path);
  return decode_npy(bytes, out).prefixed(path);
}

} // namespace actorflow::interop
