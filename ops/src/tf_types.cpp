#include "tf_types.hpp"

namespace actorflow::ops::detail {

tfproto::DataType to_proto(core::dtype x) {
  using core::dtype;
  switch (x) {
    case dtype::bool_: return tfproto::DT_BOOL;
    case dtype::int8: return tfproto::DT_INT8;
    case dtype::int16: return tfproto::DT_INT16;
    case dtype::int32: return tfproto::DT_INT32;
    case dtype::int64: return tfproto::DT_INT64;
    case dtype::uint8: return tfproto::DT_UINT8;
    case dtype::uint16: return tfproto::DT_UINT16;
    case dtype::uint32: return tfproto::DT_UINT32;
    case dtype::uint64: return tfproto::DT_UINT64;
    case dtype::float16: return tfproto::DT_HALF;
    case dtype::bfloat16: return tfproto::DT_BFLOAT16;
    case dtype::float32: return tfproto::DT_FLOAT;
    case dtype::float64: return tfproto::DT_DOUBLE;
    case dtype::complex64: return tfproto::DT_COMPLEX64;
    case dtype::complex128: return tfproto::DT_COMPLEX128;
    case dtype::string: return tfproto::DT_STRING;
    case dtype::variant: return tfproto::DT_VARIANT;
    case dtype::invalid: break;
  }
  return tfproto::DT_INVALID;
}

core::dtype from_proto(tfproto::DataType x) {
  using core::dtype;
  auto base = static_cast<int>(x) > 100 ? static_cast<int>(x) - 100
                                        : static_cast<int>(x);
  switch (static_cast<tfproto::DataType>(base)) {
    case tfproto::DT_BOOL: return dtype::bool_;
    case tfproto::DT_INT8: return dtype::int8;
    case tfproto::DT_INT16: return dtype::int16;
    case tfproto::DT_INT32: return dtype::int32;
    case tfproto::DT_INT64: return dtype::int64;
    case tfproto::DT_UINT8: return dtype::uint8;
    case tfproto::DT_UINT16: return dtype::uint16;
    case tfproto::DT_UINT32: return dtype::uint32;
    case tfproto::DT_UINT64: return dtype::uint64;
    case tfproto::DT_HALF: return dtype::float16;
    case tfproto::DT_BFLOAT16: return dtype::bfloat16;
    case tfproto::DT_FLOAT: return dtype::float32;
    case tfproto::DT_DOUBLE: return dtype::float64;
    case tfproto::DT_COMPLEX64: return dtype::complex64;
    case tfproto::DT_COMPLEX128: return dtype::complex128;
    case tfproto::DT_STRING: return dtype::string;
    // A resource handle (a variable's, a TensorArray's) is a string
    // naming the resource.
    case tfproto::DT_RESOURCE: return dtype::string;
    case tfproto::DT_VARIANT: return dtype::variant;
    default: return dtype::invalid;
  }
}

} // namespace actorflow::ops::detail
