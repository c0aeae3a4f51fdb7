// ReadIdx: an IDX file (gzip'd or not; zlib reads both) as one tensor.
// Save and Restore: checkpoint files (checkpoint_file.hpp).

#include "kernels.hpp"

#include "../../checkpoint_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <zlib.h>

namespace actorflow::ops::cpu {

namespace {

/// The dtype an IDX type code stands for (0x08 unsigned byte, 0x09 signed
/// byte, 0x0B short, 0x0C int, 0x0D float, 0x0E double), or invalid.
core::dtype idx_dtype(unsigned char code) {
  switch (code) {
    case 0x08: return core::dtype::uint8;
    case 0x09: return core::dtype::int8;
    case 0x0B: return core::dtype::int16;
    case 0x0C: return core::dtype::int32;
    case 0x0D: return core::dtype::float32;
    case 0x0E: return core::dtype::float64;
    default: return core::dtype::invalid;
  }
}

/// A file read through zlib (gzip'd or not), closed on destruction; its
/// errors name the file as `kind` (e.g. "IDX file").
class gz_reader {
public:
  gz_reader(const std::string& path, const char* kind)
    : file_(gzopen(path.c_str(), "rb")), path_(path), kind_(kind) {
    // nop
  }

  ~gz_reader() {
    if (file_ != nullptr)
      gzclose(file_);
  }

  gz_reader(const gz_reader&) = delete;
  gz_reader& operator=(const gz_reader&) = delete;

  /// not_found unless the file opened.
  core::status opened() const {
    if (file_ != nullptr)
      return core::status::ok();
    return core::not_found_error("cannot open ", kind_, " '", path_,
                                 "': ", std::strerror(errno));
  }

  /// Reads exactly `n` bytes of `what`, or says why not.
  core::status read(void* out, size_t n, const char* what) {
    auto* p = static_cast<char*>(out);
    size_t done = 0;
    while (done < n) {
      auto chunk = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
      int got = gzread(file_, p + done, chunk);
      if (got < 0)
        return corrupt();
      if (got == 0)
        return core::data_loss_error(kind_, " '", path_,
                                     "' is truncated: ", what, " needs ", n,
                                     " bytes, it has ", done);
      done += static_cast<size_t>(got);
    }
    return core::status::ok();
  }

  /// Appends the rest of the file to `out`.
  core::status read_rest(std::string* out) {
    char buf[1 << 16];
    int got;
    while ((got = gzread(file_, buf, sizeof buf)) > 0)
      out->append(buf, static_cast<size_t>(got));
    return got < 0 ? corrupt() : core::status::ok();
  }

  /// Checks that nothing follows; for a gzip'd file this also checks the
  /// stream's CRC, which zlib verifies at its end.
  core::status at_end() {
    char extra;
    int got = gzread(file_, &extra, 1);
    if (got < 0)
      return corrupt();
    if (got > 0)
      return core::data_loss_error(kind_, " '", path_,
                                   "' has bytes after its data");
    return core::status::ok();
  }

private:
  core::status corrupt() {
    int code = 0;
    return core::data_loss_error(kind_, " '", path_, "' is corrupt (",
                                 gzerror(file_, &code), ")");
  }

  gzFile file_;
  std::string path_;
  const char* kind_;
};

class read_idx_kernel : public basic_kernel {
public:
  explicit read_idx_kernel(kernel_construction& ctx) {
    init_ = ctx.get_attr("dtype", &dtype_);
  }

  void compute(kernel_context& ctx) override {
    std::string path;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_string(ctx.input(0), "filename", &path));
    gz_reader in{path, "IDX file"};
    ACTORFLOW_OP_REQUIRES_OK(ctx, in.opened());
    unsigned char magic[4];
    ACTORFLOW_OP_REQUIRES_OK(ctx, in.read(magic, 4, "the magic number"));
    auto type = idx_dtype(magic[2]);
    ACTORFLOW_OP_REQUIRES(
      ctx, magic[0] == 0 && magic[1] == 0 && type != core::dtype::invalid,
      core::data_loss_error("'", path,
                            "' is not an IDX file (bad magic number)"));
    ACTORFLOW_OP_REQUIRES(
      ctx, type == dtype_,
      core::invalid_argument_error("IDX file '", path, "' holds ",
                                   core::to_string(type), ", the op reads ",
                                   core::to_string(dtype_)));
    std::vector<int64_t> dims(magic[3]);
    for (auto& d : dims) {
      unsigned char b[4];
      ACTORFLOW_OP_REQUIRES_OK(ctx, in.read(b, 4, "the dimensions"));
      d = (int64_t{b[0]} << 24) | (int64_t{b[1]} << 16) | (int64_t{b[2]} << 8)
          | int64_t{b[3]};
    }
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, core::shape{std::move(dims)}, &out));
    auto bytes = out->bytes();
    auto* data = static_cast<unsigned char*>(out->raw_mutable_data());
    ACTORFLOW_OP_REQUIRES_OK(ctx, in.read(data, bytes, "the data"));
    ACTORFLOW_OP_REQUIRES_OK(ctx, in.at_end());
    // Elements are big-endian.
    auto width = core::size_of(type);
    if (width > 1)
      for (size_t i = 0; i < bytes; i += width)
        std::reverse(data + i, data + i + width);
  }

private:
  core::dtype dtype_ = core::dtype::invalid;
};

/// ReadTextLines: the lines of a text file, read through zlib (so a gzip'd
/// file works too), "\n" and "\r\n" ends removed, the first
/// `skip_header_lines` dropped.
class read_text_lines_kernel : public basic_kernel {
public:
  explicit read_text_lines_kernel(kernel_construction& ctx) {
    skip_ = ctx.attr_or("skip_header_lines", int64_t{0});
  }

  void compute(kernel_context& ctx) override {
    std::string path;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_string(ctx.input(0), "filename", &path));
    gz_reader in{path, "text file"};
    ACTORFLOW_OP_REQUIRES_OK(ctx, in.opened());
    std::string text;
    ACTORFLOW_OP_REQUIRES_OK(ctx, in.read_rest(&text));
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
      auto end = text.find('\n', start);
      auto stop = end == std::string::npos ? text.size() : end;
      auto line = text.substr(start, stop - start);
      if (!line.empty() && line.back() == '\r')
        line.pop_back();
      lines.push_back(std::move(line));
      start = stop + 1;
    }
    auto skip = std::min<size_t>(
      lines.size(), static_cast<size_t>(std::max<int64_t>(skip_, 0)));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, {static_cast<int64_t>(lines.size() - skip)},
                               &out));
    auto* dst = out->mutable_data<std::string>();
    for (size_t i = skip; i < lines.size(); ++i)
      dst[i - skip] = std::move(lines[i]);
  }

private:
  int64_t skip_ = 0;
};

class save_kernel : public basic_kernel {
public:
  explicit save_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    std::string path;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_string(ctx.input(0), "filename", &path));
    const auto& names = ctx.input(1);
    auto n = ctx.num_inputs() - 2;
    ACTORFLOW_OP_REQUIRES(
      ctx,
      names.shape().rank() == 1
        && names.num_elements() == static_cast<int64_t>(n),
      core::invalid_argument_error("tensor_names must hold ", n,
                                   " names, one per tensor, got shape ",
                                   names.shape().to_string()));
    std::vector<std::string> keys(names.data<std::string>(),
                                  names.data<std::string>() + n);
    std::vector<core::tensor> values;
    for (size_t i = 0; i < n; ++i)
      values.push_back(ctx.input(i + 2));
    ACTORFLOW_OP_REQUIRES_OK(ctx, write_checkpoint(path, keys, values));
  }
};

class restore_kernel : public basic_kernel {
public:
  explicit restore_kernel(kernel_construction& ctx) {
    init_ = ctx.get_attr("dt", &dt_);
  }

  void compute(kernel_context& ctx) override {
    std::string path, name;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_string(ctx.input(0), "file_pattern", &path));
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_string(ctx.input(1), "tensor_name", &name));
    std::map<std::string, core::tensor> all;
    ACTORFLOW_OP_REQUIRES_OK(ctx, read_checkpoint(path, &all));
    auto i = all.find(name);
    ACTORFLOW_OP_REQUIRES(ctx, i != all.end(),
                          core::not_found_error("no tensor '", name,
                                                "' in checkpoint '", path,
                                                "'"));
    ACTORFLOW_OP_REQUIRES(
      ctx, i->second.dtype() == dt_,
      core::invalid_argument_error("tensor '", name, "' in checkpoint '", path,
                                   "' is ", core::to_string(i->second.dtype()),
                                   ", the op restores ", core::to_string(dt_)));
    ctx.set_output(0, std::move(i->second));
  }

private:
  core::dtype dt_ = core::dtype::invalid;
};

/// Reads the tensors a SavedModel's restore function names from its tensor
/// bundle.
} // namespace

void register_io_kernels(kernel_registry& r) {
  r.add_any<read_idx_kernel>("ReadIdx", device_type);
  r.add_any<save_kernel>("Save", device_type);
  r.add_any<restore_kernel>("Restore", device_type);
  r.add_any<read_text_lines_kernel>("ReadTextLines", device_type);
}

} // namespace actorflow::ops::cpu
