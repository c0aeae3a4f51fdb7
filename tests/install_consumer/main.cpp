#include <cstdio>

#include "actorflow/actorflow.hpp"

using namespace actorflow;

int main() {
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), core::dtype::float32, {2});
  auto y = graph::relu(s, x);
  actors::engine e;
  actors::session sess{e};
  std::vector<core::tensor> out;
  if (!sess.extend(s.graph_def()).is_ok()
      || !sess
            .run({{"x", core::tensor::from_vector<float>({2}, {3, -3})}},
                 {y.name()}, {}, &out)
            .is_ok())
    return 1;
  std::printf("relu = %g %g\n", out[0].flat<float>()(0),
              out[0].flat<float>()(1));
  return 0;
}
