#include <cstdio>

#include "actorflow/actorflow.hpp"
#include "actorflow/core/build_info.hpp"
// The forwarding headers of names that moved, which the umbrella leaves
// out: code written against them still compiles for one release.
#include "actorflow/net/graph_def.hpp"
#include "actorflow/net/npy.hpp"
#include "actorflow/net/saved_model.hpp"
#include "actorflow/net/summary_writer.hpp"

using namespace actorflow;

int main() {
  // The headers are compiled here as they were in the library (Eigen's
  // alignment and SIMD), with only the flags the package exports.
  auto lib = core::library_build_info();
  auto here = core::header_build_info();
  if (lib != here) {
    std::printf("the library was built with %s, this program with %s\n",
                lib.to_string().c_str(), here.to_string().c_str());
    return 1;
  }
  // Old names still name the new functions.
  if (&net::load_graph_def != &interop::tensorflow::load_graph_def
      || &net::load_npy != &interop::load_npy)
    return 1;
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), core::dtype::float32, {2});
  auto y = graph::relu(s, x);
  auto g = graph::gradients(s, {y}, {x}); // the umbrella header has it
  actors::engine e;
  actors::session sess{e};
  std::vector<core::tensor> out;
  if (!sess.extend(s.graph_def()).is_ok() || !g[0]
      || !sess
            .run({{"x", core::tensor::from_vector<float>({2}, {3, -3})}},
                 {y.name(), g[0]->name()}, {}, &out)
            .is_ok())
    return 1;
  std::printf("relu = %g %g, gradient = %g %g\n", out[0].flat<float>()(0),
              out[0].flat<float>()(1), out[1].flat<float>()(0),
              out[1].flat<float>()(1));
  return 0;
}
