// libFuzzer target: a graph message as it arrives from a file or the
// network is decoded and validated, then extended into a session (which
// validates it again against the session's graph). Nothing may crash,
// leak or hang; errors are statuses.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/net/graph_codec.hpp"

using namespace actorflow;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Built once and never destroyed: CAF 0.17's actor system must not be
  // torn down by the exit handlers (its destructor then touches freed
  // memory), and libFuzzer ends the process with exit().
  static auto& engine = *new actors::engine{[] {
    actors::engine_options o;
    o.threads_per_device = 1;
    o.scheduler_threads = 1;
    return o;
  }()};
  graph::graph g;
  std::string_view bytes{reinterpret_cast<const char*>(data), size};
  if (!net::decode_graph(bytes, engine.context().ops(), &g).is_ok())
    return 0;
  actors::session sess{engine};
  (void)sess.extend(g);
  return 0;
}
