#include "tensorflow/tf_proto.hpp"

#include <algorithm>
#include <cstring>

namespace actorflow::interop::tensorflow::detail {

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
  if (x.dtype() == core::dtype::variant)
    return; // opaque values of ops, not written
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

} // namespace actorflow::interop::tensorflow::detail

namespace actorflow::interop::tensorflow::detail {

core::status from_proto(const tfproto::TensorShapeProto& x, core::shape* out) {
  if (x.unknown_rank()) {
    *out = core::shape::unknown();
    return core::status::ok();
  }
  if (x.dim_size() > static_cast<int>(core::shape::max_rank))
    return core::invalid_argument_error("a shape of rank ", x.dim_size(),
                                        " exceeds the largest, ",
                                        core::shape::max_rank);
  std::vector<int64_t> dims;
  for (const auto& d : x.dim()) {
    if (d.size() < -1)
      return core::invalid_argument_error("a shape has dimension ", d.size());
    dims.push_back(d.size());
  }
  *out = core::shape{dims};
  return core::status::ok();
}

namespace {

/// Copies `vals` into the `n` elements at `dst`, the last value repeated.
template <class T, class Field>
void splat(const Field& vals, T* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (vals.empty()) {
      dst[i] = T{};
      continue;
    }
    auto k = std::min<int64_t>(i, vals.size() - 1);
    dst[i] = static_cast<T>(vals.Get(static_cast<int>(k)));
  }
}

} // namespace

core::status from_proto(const tfproto::TensorProto& x, core::tensor* out) {
  auto type = from_proto(x.dtype());
  if (type == core::dtype::invalid || type == core::dtype::variant)
    return core::unimplemented_error("a tensor of TensorFlow DataType ",
                                     tfproto::DataType_Name(x.dtype()),
                                     ", which actorflow lacks");
  core::shape s;
  ACTORFLOW_RETURN_IF_ERROR(from_proto(x.tensor_shape(), &s));
  if (!s.fully_defined())
    return core::invalid_argument_error("a tensor's shape ", s.to_string(),
                                        " is not fully defined");
  core::tensor t{type, s};
  auto n = t.num_elements();
  if (type == core::dtype::string) {
    splat(x.string_val(), t.mutable_data<std::string>(), n);
  } else if (!x.tensor_content().empty()) {
    if (x.tensor_content().size() != t.bytes())
      return core::invalid_argument_error("a tensor of shape ", s.to_string(),
                                          " has ", x.tensor_content().size(),
                                          " content bytes, not ", t.bytes());
    std::memcpy(t.raw_mutable_data(), x.tensor_content().data(), t.bytes());
  } else {
    bool ok = true;
    core::visit_dtype(type, [&](auto v) {
      using T = decltype(v);
      auto* dst = t.mutable_data<T>();
      if constexpr (std::is_same_v<T, float>)
        splat(x.float_val(), dst, n);
      else if constexpr (std::is_same_v<T, double>)
        splat(x.double_val(), dst, n);
      else if constexpr (std::is_same_v<T, bool>)
        splat(x.bool_val(), dst, n);
      else if constexpr (std::is_same_v<T, int64_t>)
        splat(x.int64_val(), dst, n);
      else if constexpr (std::is_same_v<T, uint32_t>)
        splat(x.uint32_val(), dst, n);
      else if constexpr (std::is_same_v<T, uint64_t>)
        splat(x.uint64_val(), dst, n);
      else if constexpr (
        std::is_same_v<
          T,
          int32_t> || std::is_same_v<T, int16_t> || std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t>)
        splat(x.int_val(), dst, n);
      else
        ok = n == 0; // half, bfloat16, complex: tensor_content only
    });
    if (!ok)
      return core::unimplemented_error(
        "a ", core::to_string(type),
        " tensor without tensor_content (only its bytes are read)");
  }
  *out = std::move(t);
  return core::status::ok();
}

core::status from_proto(const tfproto::AttrValue& x, const std::string& type,
                        core::attr_value* out) {
  auto mismatch
    = [&] { return core::invalid_argument_error("the value is not a ", type); };
  using V = tfproto::AttrValue;
  if (type == "int" && x.value_case() == V::kI) {
    *out = x.i();
  } else if (type == "float" && x.value_case() == V::kF) {
    *out = static_cast<double>(x.f());
  } else if (type == "bool" && x.value_case() == V::kB) {
    *out = x.b();
  } else if (type == "string" && x.value_case() == V::kS) {
    *out = x.s();
  } else if (type == "type" && x.value_case() == V::kType) {
    auto t = from_proto(x.type());
    if (t == core::dtype::invalid)
      return core::unimplemented_error("TensorFlow DataType ",
                                       tfproto::DataType_Name(x.type()),
                                       ", which actorflow lacks");
    *out = t;
  } else if (type == "shape" && x.value_case() == V::kShape) {
    core::shape s;
    ACTORFLOW_RETURN_IF_ERROR(from_proto(x.shape(), &s));
    *out = s;
  } else if (type == "tensor" && x.value_case() == V::kTensor) {
    core::tensor t;
    ACTORFLOW_RETURN_IF_ERROR(from_proto(x.tensor(), &t));
    *out = t;
  } else if (type.rfind("list(", 0) == 0
             && (x.value_case() == V::kList
                 || x.value_case() == V::VALUE_NOT_SET)) {
    const auto& l = x.list();
    if (type == "list(int)") {
      *out = std::vector<int64_t>(l.i().begin(), l.i().end());
    } else if (type == "list(float)") {
      *out = std::vector<double>(l.f().begin(), l.f().end());
    } else if (type == "list(bool)") {
      *out = std::vector<bool>(l.b().begin(), l.b().end());
    } else if (type == "list(string)") {
      *out = std::vector<std::string>(l.s().begin(), l.s().end());
    } else if (type == "list(type)") {
      std::vector<core::dtype> ts;
      for (auto t : l.type()) {
        ts.push_back(from_proto(static_cast<tfproto::DataType>(t)));
        if (ts.back() == core::dtype::invalid)
          return core::unimplemented_error(
            "TensorFlow DataType ",
            tfproto::DataType_Name(static_cast<tfproto::DataType>(t)),
            ", which actorflow lacks");
      }
      *out = ts;
    } else if (type == "list(shape)") {
      std::vector<core::shape> ss(static_cast<size_t>(l.shape_size()));
      for (int i = 0; i < l.shape_size(); ++i)
        ACTORFLOW_RETURN_IF_ERROR(
          from_proto(l.shape(i), &ss[static_cast<size_t>(i)]));
      *out = ss;
    } else if (type == "list(tensor)") {
      std::vector<core::tensor> ts(static_cast<size_t>(l.tensor_size()));
      for (int i = 0; i < l.tensor_size(); ++i)
        ACTORFLOW_RETURN_IF_ERROR(
          from_proto(l.tensor(i), &ts[static_cast<size_t>(i)]));
      *out = ts;
    } else {
      return mismatch();
    }
  } else {
    return mismatch();
  }
  return core::status::ok();
}

} // namespace actorflow::interop::tensorflow::detail
