#include "tensor_codec.hpp"

#include <cstdint>
#include <cstring>

namespace actorflow::ops::detail {

void encode_tensor(const core::tensor& t, schema::Tensor::Builder out,
                   capnp::Orphanage* zero_copy) {
  out.setDtype(static_cast<uint8_t>(t.dtype()));
  auto dims = out.initShape(static_cast<unsigned>(t.shape().dims().size()));
  for (size_t i = 0; i < t.shape().dims().size(); ++i)
    dims.set(static_cast<unsigned>(i), t.shape().dims()[i]);
  if (t.dtype() == core::dtype::variant) {
    // Opaque values stay in their process: the receiver refuses the tensor.
    return;
  }
  if (t.dtype() == core::dtype::string) {
    auto strs = out.initStrings(static_cast<unsigned>(t.num_elements()));
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      const auto& s = t.data<std::string>()[i];
      strs.set(
        static_cast<unsigned>(i),
        kj::arrayPtr(reinterpret_cast<const kj::byte*>(s.data()), s.size()));
    }
  } else if (t.dtype() == core::dtype::bool_) {
    auto data = out.initData(static_cast<unsigned>(t.num_elements()));
    for (int64_t i = 0; i < t.num_elements(); ++i)
      data[static_cast<size_t>(i)] = t.data<bool>()[i] ? 1 : 0;
  } else if (zero_copy != nullptr && t.bytes() > 0
             && reinterpret_cast<uintptr_t>(t.raw_data()) % 8 == 0) {
    out.adoptData(zero_copy->referenceExternalData(capnp::Data::Reader{
      static_cast<const kj::byte*>(t.raw_data()), t.bytes()}));
  } else {
    auto data = out.initData(static_cast<unsigned>(t.bytes()));
    if (t.bytes() > 0)
      std::memcpy(data.begin(), t.raw_data(), t.bytes());
  }
}

core::status decode_dtype(uint8_t raw, core::dtype* out) {
  if (raw == 0 || raw >= core::num_dtypes)
    return core::invalid_argument_error("unknown dtype code ",
                                        static_cast<int>(raw));
  if (static_cast<core::dtype>(raw) == core::dtype::variant)
    return core::unimplemented_error(
      "a variant tensor (a TensorList) cannot leave its process");
  *out = static_cast<core::dtype>(raw);
  return core::status::ok();
}

/// Refuses a `what` (shape or tensor) of more dims than a shape may have,
/// before any is read.
core::status check_rank(const char* what, size_t rank) {
  if (rank > core::shape::max_rank)
    return core::invalid_argument_error(
      what, " of rank ", rank, " exceeds the limit of ", core::shape::max_rank);
  return core::status::ok();
}

core::status decode_tensor_header(schema::Tensor::Reader in, core::dtype* type,
                                  core::shape* shape) {
  ACTORFLOW_RETURN_IF_ERROR(decode_dtype(in.getDtype(), type));
  ACTORFLOW_RETURN_IF_ERROR(check_rank("tensor", in.getShape().size()));
  std::vector<int64_t> dims;
  int64_t n = 1;
  for (auto d : in.getShape()) {
    if (d < 0 || (d > 0 && n > (int64_t{1} << 40) / d))
      return core::invalid_argument_error("bad tensor dimension ", d);
    dims.push_back(d);
    n *= d;
  }
  *shape = core::shape{std::move(dims)};
  return core::status::ok();
}

core::status decode_tensor(schema::Tensor::Reader in, core::tensor* out) {
  core::dtype type;
  core::shape s;
  ACTORFLOW_RETURN_IF_ERROR(decode_tensor_header(in, &type, &s));
  auto n = s.num_elements();
  auto data = in.getData();
  auto strings = in.getStrings();
  // Check the byte count before allocating anything.
  if (type == core::dtype::string) {
    if (static_cast<int64_t>(strings.size()) != n)
      return core::invalid_argument_error("string tensor of shape ",
                                          s.to_string(), " carries ",
                                          strings.size(), " strings");
  } else {
    auto want = type == core::dtype::bool_
                  ? n
                  : n * static_cast<int64_t>(core::size_of(type));
    if (static_cast<int64_t>(data.size()) != want)
      return core::invalid_argument_error(
        "tensor of dtype ", core::to_string(type), " and shape ", s.to_string(),
        " needs ", want, " bytes, got ", data.size());
  }
  core::tensor t;
  ACTORFLOW_RETURN_IF_ERROR(
    core::tensor::make(core::host_allocator(), type, s, &t));
  if (type == core::dtype::string) {
    for (unsigned i = 0; i < strings.size(); ++i)
      t.mutable_data<std::string>()[i].assign(
        reinterpret_cast<const char*>(strings[i].begin()), strings[i].size());
  } else if (type == core::dtype::bool_) {
    for (int64_t i = 0; i < n; ++i)
      t.mutable_data<bool>()[i] = data[static_cast<size_t>(i)] != 0;
  } else if (n > 0) {
    std::memcpy(t.raw_mutable_data(), data.begin(), data.size());
  }
  *out = std::move(t);
  return core::status::ok();
}

} // namespace actorflow::ops::detail
