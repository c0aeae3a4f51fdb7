#include "capnp_codec.hpp"

#include <cstdint>
#include <cstring>

namespace actorflow::net::detail {

namespace {

// -- encoding -----------------------------------------------------------------

void encode_shape(const core::shape& s, schema::Shape::Builder out) {
  out.setUnknownRank(!s.known_rank());
  auto dims = out.initDims(static_cast<unsigned>(s.dims().size()));
  for (size_t i = 0; i < s.dims().size(); ++i)
    dims.set(static_cast<unsigned>(i), s.dims()[i]);
}

} // namespace

void encode_tensor(const core::tensor& t, schema::Tensor::Builder out,
                   capnp::Orphanage* zero_copy) {
  out.setDtype(static_cast<uint8_t>(t.dtype()));
  auto dims = out.initShape(static_cast<unsigned>(t.shape().dims().size()));
  for (size_t i = 0; i < t.shape().dims().size(); ++i)
    dims.set(static_cast<unsigned>(i), t.shape().dims()[i]);
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

namespace {

template <class List, class F>
void encode_list(List out, const F& f, size_t n) {
  for (size_t i = 0; i < n; ++i)
    f(static_cast<unsigned>(i), out);
}

void encode_attr(const core::attr_value& v, schema::AttrValue::Builder out) {
  std::visit(
    [&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      auto n = [&](const auto& xs) { return static_cast<unsigned>(xs.size()); };
      if constexpr (std::is_same_v<T, int64_t>) {
        out.setI(x);
      } else if constexpr (std::is_same_v<T, double>) {
        out.setF(x);
      } else if constexpr (std::is_same_v<T, bool>) {
        out.setB(x);
      } else if constexpr (std::is_same_v<T, std::string>) {
        out.setS(x);
      } else if constexpr (std::is_same_v<T, core::dtype>) {
        out.setType(static_cast<uint8_t>(x));
      } else if constexpr (std::is_same_v<T, core::shape>) {
        encode_shape(x, out.initShape());
      } else if constexpr (std::is_same_v<T, core::tensor>) {
        encode_tensor(x, out.initTensor());
      } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
        auto l = out.initListI(n(x));
        for (unsigned i = 0; i < n(x); ++i)
          l.set(i, x[i]);
      } else if constexpr (std::is_same_v<T, std::vector<double>>) {
        auto l = out.initListF(n(x));
        for (unsigned i = 0; i < n(x); ++i)
          l.set(i, x[i]);
      } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
        auto l = out.initListB(n(x));
        for (unsigned i = 0; i < n(x); ++i)
          l.set(i, x[i]);
      } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
        auto l = out.initListS(n(x));
        for (unsigned i = 0; i < n(x); ++i)
          l.set(i, x[i]);
      } else if constexpr (std::is_same_v<T, std::vector<core::dtype>>) {
        auto l = out.initListType(n(x));
        for (unsigned i = 0; i < n(x); ++i)
          l.set(i, static_cast<uint8_t>(x[i]));
      } else if constexpr (std::is_same_v<T, std::vector<core::shape>>) {
        auto l = out.initListShape(n(x));
        for (unsigned i = 0; i < n(x); ++i)
          encode_shape(x[i], l[i]);
      } else {
        auto l = out.initListTensor(n(x));
        for (unsigned i = 0; i < n(x); ++i)
          encode_tensor(x[i], l[i]);
      }
    },
    v);
}

// -- decoding -----------------------------------------------------------------

core::status decode_dtype(uint8_t raw, core::dtype* out) {
  if (raw == 0 || raw >= core::num_dtypes)
    return core::invalid_argument_error("unknown dtype code ",
                                        static_cast<int>(raw));
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

core::status decode_shape(schema::Shape::Reader in, core::shape* out) {
  if (in.getUnknownRank()) {
    *out = core::shape::unknown();
    return core::status::ok();
  }
  ACTORFLOW_RETURN_IF_ERROR(check_rank("shape", in.getDims().size()));
  std::vector<int64_t> dims;
  for (auto d : in.getDims()) {
    if (d < -1)
      return core::invalid_argument_error("bad dimension ", d);
    dims.push_back(d);
  }
  *out = core::shape{std::move(dims)};
  return core::status::ok();
}

} // namespace

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

namespace {

core::status decode_attr(schema::AttrValue::Reader in, core::attr_value* out) {
  using W = schema::AttrValue;
  switch (in.which()) {
    case W::I: *out = in.getI(); break;
    case W::F: *out = in.getF(); break;
    case W::B: *out = in.getB(); break;
    case W::S: *out = std::string{in.getS().cStr()}; break;
    case W::TYPE: {
      core::dtype t;
      ACTORFLOW_RETURN_IF_ERROR(decode_dtype(in.getType(), &t));
      *out = t;
      break;
    }
    case W::SHAPE: {
      core::shape s;
      ACTORFLOW_RETURN_IF_ERROR(decode_shape(in.getShape(), &s));
      *out = std::move(s);
      break;
    }
    case W::TENSOR: {
      core::tensor t;
      ACTORFLOW_RETURN_IF_ERROR(decode_tensor(in.getTensor(), &t));
      *out = std::move(t);
      break;
    }
    case W::LIST_I: {
      std::vector<int64_t> xs;
      for (auto x : in.getListI())
        xs.push_back(x);
      *out = std::move(xs);
      break;
    }
    case W::LIST_F: {
      std::vector<double> xs;
      for (auto x : in.getListF())
        xs.push_back(x);
      *out = std::move(xs);
      break;
    }
    case W::LIST_B: {
      std::vector<bool> xs;
      for (auto x : in.getListB())
        xs.push_back(x);
      *out = std::move(xs);
      break;
    }
    case W::LIST_S: {
      std::vector<std::string> xs;
      for (auto x : in.getListS())
        xs.emplace_back(x.cStr());
      *out = std::move(xs);
      break;
    }
    case W::LIST_TYPE: {
      std::vector<core::dtype> xs;
      for (auto x : in.getListType()) {
        core::dtype t;
        ACTORFLOW_RETURN_IF_ERROR(decode_dtype(x, &t));
        xs.push_back(t);
      }
      *out = std::move(xs);
      break;
    }
    case W::LIST_SHAPE: {
      std::vector<core::shape> xs;
      for (auto x : in.getListShape()) {
        core::shape s;
        ACTORFLOW_RETURN_IF_ERROR(decode_shape(x, &s));
        xs.push_back(std::move(s));
      }
      *out = std::move(xs);
      break;
    }
    case W::LIST_TENSOR: {
      std::vector<core::tensor> xs;
      for (auto x : in.getListTensor()) {
        core::tensor t;
        ACTORFLOW_RETURN_IF_ERROR(decode_tensor(x, &t));
        xs.push_back(std::move(t));
      }
      *out = std::move(xs);
      break;
    }
    default: return core::invalid_argument_error("unknown attr value kind");
  }
  return core::status::ok();
}

} // namespace

core::status decode_graph(schema::Graph::Reader in, graph::graph* out) {
  if (in.getVersion() != graph_version)
    return core::invalid_argument_error(
      "graph format version ", in.getVersion(), ", expected ", graph_version);
  graph::graph g;
  for (auto n : in.getNodes()) {
    core::node_def node;
    node.name = n.getName().cStr();
    node.op = n.getOp().cStr();
    node.device = n.getDevice().cStr();
    for (auto i : n.getInputs())
      node.inputs.emplace_back(i.cStr());
    for (auto a : n.getAttrs()) {
      core::attr_value v;
      auto st = decode_attr(a.getValue(), &v);
      if (!st.is_ok())
        return core::invalid_argument_error("attr '", a.getName().cStr(),
                                            "': ", st.message())
          .with_context(node.name, node.op);
      node.attrs.emplace(a.getName().cStr(), std::move(v));
    }
    ACTORFLOW_RETURN_IF_ERROR(g.add(std::move(node)));
  }
  *out = std::move(g);
  return core::status::ok();
}

void encode_graph(const graph::graph& g, schema::Graph::Builder out) {
  out.setVersion(graph_version);
  auto nodes = out.initNodes(static_cast<unsigned>(g.size()));
  for (size_t i = 0; i < g.size(); ++i) {
    const auto& src = g.nodes()[i];
    auto n = nodes[static_cast<unsigned>(i)];
    n.setName(src.name);
    n.setOp(src.op);
    n.setDevice(src.device);
    auto inputs = n.initInputs(static_cast<unsigned>(src.inputs.size()));
    for (size_t k = 0; k < src.inputs.size(); ++k)
      inputs.set(static_cast<unsigned>(k), src.inputs[k]);
    auto attrs = n.initAttrs(static_cast<unsigned>(src.attrs.size()));
    unsigned k = 0;
    for (const auto& [name, value] : src.attrs) {
      attrs[k].setName(name);
      encode_attr(value, attrs[k].initValue());
      ++k;
    }
  }
}

} // namespace actorflow::net::detail
