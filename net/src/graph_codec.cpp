#include "actorflow/net/graph_codec.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include "actorflow/graph/validate.hpp"
#include "capnp_codec.hpp"

namespace actorflow::net {

core::status encode_graph(const graph::graph& g, std::string* out) {
  try {
    capnp::MallocMessageBuilder mb;
    detail::encode_graph(g, mb.initRoot<schema::Graph>());
    auto words = capnp::messageToFlatArray(mb);
    auto bytes = words.asBytes();
    out->assign(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
  } catch (const kj::Exception& e) {
    return core::internal_error("encoding the graph failed: ",
                                e.getDescription().cStr());
  }
  return core::status::ok();
}

core::status decode_graph(std::string_view bytes,
                          const ops::op_registry& registry, graph::graph* out,
                          size_t max_bytes) {
  if (bytes.size() > max_bytes)
    return core::invalid_argument_error("graph message of ", bytes.size(),
                                        " bytes exceeds the limit of ",
                                        max_bytes, " bytes");
  if (bytes.empty() || bytes.size() % sizeof(capnp::word) != 0)
    return core::invalid_argument_error(
      "not a valid Cap'n Proto message: ", bytes.size(),
      " bytes is not a positive multiple of 8");
  // Cap'n Proto reads in place and needs word alignment: copy once.
  auto words = kj::heapArray<capnp::word>(bytes.size() / sizeof(capnp::word));
  std::memcpy(words.begin(), bytes.data(), bytes.size());
  graph::graph g;
  try {
    capnp::ReaderOptions opts;
    opts.traversalLimitInWords = words.size() * 4 + 1024;
    capnp::FlatArrayMessageReader reader{words.asPtr(), opts};
    ACTORFLOW_RETURN_IF_ERROR(
      detail::decode_graph(reader.getRoot<schema::Graph>(), &g));
  } catch (const kj::Exception& e) {
    return core::invalid_argument_error("not a valid Cap'n Proto graph: ",
                                        e.getDescription().cStr());
  }
  ACTORFLOW_RETURN_IF_ERROR(graph::validate(g, registry));
  *out = std::move(g);
  return core::status::ok();
}

core::status save_graph(const graph::graph& g, const std::string& path) {
  std::string bytes;
  ACTORFLOW_RETURN_IF_ERROR(encode_graph(g, &bytes));
  std::ofstream f{path, std::ios::binary | std::ios::trunc};
  if (!f)
    return core::not_found_error("cannot open '", path, "' for writing");
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f)
    return core::data_loss_error("writing '", path, "' failed");
  return core::status::ok();
}

core::status load_graph(const std::string& path,
                        const ops::op_registry& registry, graph::graph* out,
                        size_t max_bytes) {
  std::ifstream f{path, std::ios::binary};
  if (!f)
    return core::not_found_error("cannot open graph file '", path, "'");
  std::ostringstream buf;
  buf << f.rdbuf();
  auto st = decode_graph(buf.str(), registry, out, max_bytes);
  if (!st.is_ok())
    return core::status{st.code(), "graph file '" + path + "': " + st.message()}
      .with_context(st.node(), st.op(), st.device());
  return st;
}

} // namespace actorflow::net
