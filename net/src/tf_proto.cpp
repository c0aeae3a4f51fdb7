#include "tf_proto.hpp"

namespace actorflow::net::detail {

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
    case dtype::invalid: break;
  }
  return tfproto::DT_INVALID;
}

void to_proto(const core::shape& x, tfproto::TensorShapeProto* out) {
  out->Clear();
  if (!x.known_rank()) {
    out->set_unknown_rank(true);
    return;
  }
  for (int i = 0; i < x.rank(); ++i)
    out->add_dim()->set_size(x.dim(i));
}

void to_proto(const core::tensor& x, tfproto::TensorProto* out) {
  out->Clear();
  out->set_dtype(to_proto(x.dtype()));
  to_proto(x.shape(), out->mutable_tensor_shape());
  if (x.dtype() == core::dtype::string) {
    const auto* xs = x.data<std::string>();
    for (int64_t i = 0; i < x.num_elements(); ++i)
      out->add_string_val(xs[i]);
    return;
  }
  // Little-endian, row-major: the engine's own layout on the machines it
  // runs on.
  out->set_tensor_content(static_cast<const char*>(x.raw_data()), x.bytes());
}

void to_proto(const core::attr_value& x, tfproto::AttrValue* out) {
  std::visit(
    [out](const auto& v) {
      using T = std::decay_t<decltype(v)>;
      if constexpr (std::is_same_v<T, int64_t>) {
        out->set_i(v);
      } else if constexpr (std::is_same_v<T, double>) {
        out->set_f(static_cast<float>(v));
      } else if constexpr (std::is_same_v<T, bool>) {
        out->set_b(v);
      } else if constexpr (std::is_same_v<T, std::string>) {
        out->set_s(v);
      } else if constexpr (std::is_same_v<T, core::dtype>) {
        out->set_type(to_proto(v));
      } else if constexpr (std::is_same_v<T, core::shape>) {
        to_proto(v, out->mutable_shape());
      } else if constexpr (std::is_same_v<T, core::tensor>) {
        to_proto(v, out->mutable_tensor());
      } else {
        auto* list = out->mutable_list();
        for (const auto& e : v) {
          using E = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<E, int64_t>)
            list->add_i(e);
          else if constexpr (std::is_same_v<E, double>)
            list->add_f(static_cast<float>(e));
          else if constexpr (std::is_same_v<E, bool>)
            list->add_b(e);
          else if constexpr (std::is_same_v<E, std::string>)
            list->add_s(e);
          else if constexpr (std::is_same_v<E, core::dtype>)
            list->add_type(to_proto(e));
          else if constexpr (std::is_same_v<E, core::shape>)
            to_proto(e, list->add_shape());
          else
            to_proto(e, list->add_tensor());
        }
      }
    },
    x);
}

} // namespace actorflow::net::detail
