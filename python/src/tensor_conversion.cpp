// Converts between the engine's tensors and Python arrays (numpy's buffer
// protocol, DLPack) without copying where the layout allows.
#include "tensor_conversion.hpp"

#include <cstring>
#include <memory>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "errors.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace actorflow::python {

namespace {

using code = nb::dlpack::dtype_code;

/// Copies the elements of a strided array into `dst`, row-major.
void copy_strided(const uint8_t* src, uint8_t* dst, const host_array& a,
                  size_t dim, size_t item, size_t* offset) {
  auto n = a.shape(dim);
  auto step = a.stride(dim) * static_cast<int64_t>(item);
  for (size_t i = 0; i < n; ++i) {
    const auto* at = src + static_cast<int64_t>(i) * step;
    if (dim + 1 == a.ndim()) {
      std::memcpy(dst + *offset, at, item);
      *offset += item;
    } else {
      copy_strided(at, dst, a, dim + 1, item, offset);
    }
  }
}

bool c_contiguous(const host_array& a) {
  int64_t expected = 1;
  for (size_t i = a.ndim(); i-- > 0;) {
    if (a.shape(i) != 1 && a.stride(i) != expected)
      return false;
    expected *= static_cast<int64_t>(a.shape(i));
  }
  return true;
}

nb::dlpack::dtype dlpack_of(core::dtype t) {
  auto make = [](code c, int bits) {
    return nb::dlpack::dtype{static_cast<uint8_t>(c),
                             static_cast<uint8_t>(bits), 1};
  };
  switch (t) {
    case core::dtype::bool_: return make(code::Bool, 8);
    case core::dtype::int8: return make(code::Int, 8);
    case core::dtype::int16: return make(code::Int, 16);
    case core::dtype::int32: return make(code::Int, 32);
    case core::dtype::int64: return make(code::Int, 64);
    case core::dtype::uint8: return make(code::UInt, 8);
    case core::dtype::uint16:
    case core::dtype::bfloat16: // as uint16; viewed as bfloat16 in Python
      return make(code::UInt, 16);
    case core::dtype::uint32: return make(code::UInt, 32);
    case core::dtype::uint64: return make(code::UInt, 64);
    case core::dtype::float16: return make(code::Float, 16);
    case core::dtype::float32: return make(code::Float, 32);
    case core::dtype::float64: return make(code::Float, 64);
    case core::dtype::complex64: return make(code::Complex, 64);
    case core::dtype::complex128: return make(code::Complex, 128);
    default: return {};
  }
}

/// What keeps a borrowed array alive: released where the last tensor
/// handle goes, or, on a thread without the GIL, handed to `releases`.
struct lent_array {
  host_array array;
  std::shared_ptr<release_queue> releases;

  ~lent_array() {
    if (releases != nullptr && PyGILState_Check() == 0)
      releases->push(std::move(array));
  }
};

} // namespace

void release_queue::push(host_array a) {
  std::lock_guard<std::mutex> guard{mtx_};
  pending_.push_back(std::move(a));
}

void release_queue::drain() {
  std::vector<host_array> done;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    done.swap(pending_);
  }
}

std::string dtype_name(core::dtype t) {
  switch (t) {
    case core::dtype::float32: return "float32";
    case core::dtype::float64: return "float64";
    default: return std::string{core::to_string(t)};
  }
}

core::dtype dtype_of(nb::dlpack::dtype t) {
  if (t.lanes != 1)
    return core::dtype::invalid;
  switch (static_cast<code>(t.code)) {
    case code::Bool:
      return t.bits == 8 ? core::dtype::bool_ : core::dtype::invalid;
    case code::Int:
      switch (t.bits) {
        case 8: return core::dtype::int8;
        case 16: return core::dtype::int16;
        case 32: return core::dtype::int32;
        case 64: return core::dtype::int64;
      }
      break;
    case code::UInt:
      switch (t.bits) {
        case 8: return core::dtype::uint8;
        case 16: return core::dtype::uint16;
        case 32: return core::dtype::uint32;
        case 64: return core::dtype::uint64;
      }
      break;
    case code::Float:
      switch (t.bits) {
        case 16: return core::dtype::float16;
        case 32: return core::dtype::float32;
        case 64: return core::dtype::float64;
      }
      break;
    case code::Bfloat:
      return t.bits == 16 ? core::dtype::bfloat16 : core::dtype::invalid;
    case code::Complex:
      if (t.bits == 64)
        return core::dtype::complex64;
      if (t.bits == 128)
        return core::dtype::complex128;
      break;
  }
  return core::dtype::invalid;
}

core::tensor to_tensor(const host_array& a, core::dtype as, bool* copied,
                       std::shared_ptr<release_queue> releases) {
  auto type = dtype_of(a.dtype());
  if (type == core::dtype::invalid)
    throw status_error{core::invalid_argument_error(
      "an array of DLPack dtype (code ", int{a.dtype().code}, ", bits ",
      int{a.dtype().bits}, ", lanes ", a.dtype().lanes,
      ") has no actorflow dtype")};
  if (as != core::dtype::invalid) {
    if (core::size_of(as) != core::size_of(type))
      throw status_error{core::invalid_argument_error(
        "cannot read an array of ", core::to_string(type), " as ",
        core::to_string(as), ": the element sizes differ")};
    type = as;
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < a.ndim(); ++i)
    dims.push_back(static_cast<int64_t>(a.shape(i)));
  core::shape s{dims};
  auto* data = const_cast<void*>(static_cast<const void*>(a.data()));
  if (c_contiguous(a) && reinterpret_cast<uintptr_t>(data) % 16 == 0
      && a.size() > 0) {
    auto lender = std::make_shared<lent_array>();
    lender->array = a;
    lender->releases = std::move(releases);
    core::tensor t;
    throw_if_error(core::tensor::borrow(type, s, data, std::move(lender), &t));
    *copied = false;
    return t;
  }
  core::tensor t;
  throw_if_error(core::tensor::make(core::host_allocator(), type, s, &t));
  if (a.size() > 0) {
    size_t offset = 0;
    if (c_contiguous(a))
      std::memcpy(t.raw_mutable_data(), data, t.bytes());
    else
      copy_strided(static_cast<const uint8_t*>(a.data()),
                   static_cast<uint8_t*>(t.raw_mutable_data()), a, 0,
                   a.itemsize(), &offset);
  }
  *copied = true;
  return t;
}

core::tensor to_feed(nb::handle value,
                     const std::shared_ptr<release_queue>& releases) {
  if (nb::isinstance<core::tensor>(value))
    return nb::cast<core::tensor>(value);
  bool copied = false;
  return to_tensor(nb::cast<host_array>(value), core::dtype::invalid, &copied,
                   releases);
}

core::tensor to_string_tensor(std::vector<std::string> values,
                              const std::vector<int64_t>& shape) {
  core::tensor t;
  throw_if_error(core::tensor::make(core::host_allocator(), core::dtype::string,
                                    core::shape{shape}, &t));
  if (static_cast<int64_t>(values.size()) != t.num_elements())
    throw status_error{core::invalid_argument_error(
      values.size(), " strings for a tensor of shape ", t.shape().to_string())};
  auto* dst = t.mutable_data<std::string>();
  for (auto& v : values)
    *dst++ = std::move(v);
  return t;
}

nb::object to_numpy(core::tensor t) {
  std::vector<size_t> shape;
  for (auto d : t.shape().dims())
    shape.push_back(static_cast<size_t>(d));
  if (t.dtype() == core::dtype::string) {
    nb::list items;
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      const auto& v = t.data<std::string>()[i];
      items.append(nb::bytes(v.data(), v.size()));
    }
    auto np = nb::module_::import_("numpy");
    auto flat = np.attr("empty")(t.num_elements(), "dtype"_a = "object");
    flat[nb::slice(nb::none(), nb::none(), nb::none())] = items;
    return flat.attr("reshape")(nb::tuple(nb::cast(shape)));
  }
  auto dl = dlpack_of(t.dtype());
  if (dl.bits == 0)
    throw status_error{core::invalid_argument_error(
      "a tensor of dtype ", core::to_string(t.dtype()),
      " cannot become a numpy array")};
  if (!t.unique()) {
    core::tensor copy;
    throw_if_error(t.deep_copy(&copy));
    t = std::move(copy);
  }
  auto* kept = new core::tensor(std::move(t));
  nb::capsule owner(
    kept, [](void* p) noexcept { delete static_cast<core::tensor*>(p); });
  nb::ndarray<nb::numpy> array(kept->raw_mutable_data(), shape.size(),
                               shape.data(), owner, nullptr, dl);
  auto result = array.cast();
  if (kept->dtype() == core::dtype::bfloat16) {
    auto dtypes = nb::module_::import_("actorflow.dtypes");
    auto bf16 = dtypes.attr("_numpy_bfloat16")();
    if (!bf16.is_none())
      return result.attr("view")(bf16);
    // No ml_dtypes: bfloat16 is the top half of a float32.
    auto np = nb::module_::import_("numpy");
    auto wide = result.attr("astype")(np.attr("uint32"));
    return wide.attr("__lshift__")(16).attr("view")(np.attr("float32"));
  }
  return result;
}

void bind_tensors(nb::module_& m) {
  nb::class_<core::tensor>(m, "Tensor",
                           "A value of the engine: dtype, shape, elements.")
    .def_prop_ro("dtype",
                 [](const core::tensor& t) { return dtype_name(t.dtype()); })
    .def_prop_ro("shape",
                 [](const core::tensor& t) { return t.shape().dims(); })
    .def(
      "numpy", [](const core::tensor& t) { return to_numpy(t); },
      "The elements as a numpy array (a copy when the buffer is shared).")
    .def("__repr__", [](const core::tensor& t) { return t.debug_string(); });
  m.def(
    "tensor_from_array",
    [](const host_array& a, const std::string& as) {
      auto type = core::dtype::invalid;
      if (!as.empty()) {
        auto parsed = core::parse_dtype(as);
        if (!parsed)
          throw status_error{
            core::invalid_argument_error("unknown dtype '", as, "'")};
        type = *parsed;
      }
      bool copied = false;
      auto t = to_tensor(a, type, &copied);
      return nb::make_tuple(std::move(t), copied);
    },
    "array"_a, "as_dtype"_a = "",
    "Makes a tensor of `array` (numpy, or any DLPack producer), borrowing "
    "its memory where it can; returns (tensor, copied).");
  m.def(
    "tensor_from_strings",
    [](const std::vector<nb::bytes>& values,
       const std::vector<int64_t>& shape) {
      std::vector<std::string> strings;
      for (const auto& v : values)
        strings.emplace_back(v.c_str(), v.size());
      return to_string_tensor(std::move(strings), shape);
    },
    "values"_a, "shape"_a,
    "Makes a string tensor of `shape` from `values` (row-major).");
}

} // namespace actorflow::python
