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
