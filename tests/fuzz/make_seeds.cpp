// Writes the fuzz targets' seed corpora: valid graph messages (a layer
// over two devices, a while loop with its gradient, a cond, a queue) into
// <dir>/graph, valid checkpoints, whole and as bodies, into
// <dir>/checkpoint, and .npy files into <dir>/npy.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "actorflow/actorflow.hpp"
#include "actorflow/net/npy.hpp"
#include "checkpoint_file.hpp"

using namespace actorflow;
using core::dtype;
namespace fs = std::filesystem;

namespace {

bool write(const fs::path& path, const std::string& bytes) {
  std::ofstream out{path, std::ios::binary | std::ios::trunc};
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

bool write_graph(const fs::path& dir, const std::string& name,
                 const graph::scope& s) {
  std::string bytes;
  auto st = s.ok() ? net::encode_graph(s.graph_def(), &bytes) : s.status();
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), st.to_string().c_str());
    return false;
  }
  return write(dir / name, bytes);
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds <dir>\n");
    return 2;
  }
  fs::path root{argv[1]};
  fs::create_directories(root / "graph");
  fs::create_directories(root / "checkpoint");
  bool ok = true;
  {
    graph::scope s;
    auto w = graph::variable(s.with_device("cpu:1").sub("w"), {3, 2},
                             dtype::float32);
    auto x = graph::placeholder(s.sub("x"), dtype::float32, {2, -1});
    graph::relu(s, graph::matmul(s, w, x) + graph::constant(s, 1.0));
    ok = write_graph(root / "graph", "layer", s) && ok;
  }
  {
    graph::scope s;
    auto n = graph::placeholder(s.sub("n"), dtype::int64, {});
    auto x = graph::placeholder(s.sub("x"), dtype::float32, {4});
    auto outs = graph::while_loop(
      s,
      [&](const graph::scope&, const std::vector<graph::output>& v) {
        return v[0] < n;
      },
      [&](const graph::scope& b, const std::vector<graph::output>& v) {
        return std::vector<graph::output>{v[0] + graph::constant(b, int64_t{1}),
                                          v[1] * x};
      },
      {graph::constant(s, int64_t{0}), graph::ones(s, {4})});
    graph::gradients(s, {graph::reduce_sum(s, outs[1], {0})}, {x});
    ok = write_graph(root / "graph", "loop", s) && ok;
  }
  {
    graph::scope s;
    auto p = graph::placeholder(s.sub("p"), dtype::bool_, {});
    auto x = graph::placeholder(s.sub("x"), dtype::float32, {});
    graph::cond(
      s, p,
      [&](const graph::scope& t) {
        return std::vector<graph::output>{x * graph::constant(t, 2.0)};
      },
      [&](const graph::scope&) { return std::vector<graph::output>{x}; });
    ok = write_graph(root / "graph", "cond", s) && ok;
  }
  auto ckpt = root / "checkpoint" / "two";
  auto st = ops::write_checkpoint(
    ckpt.string(), {"w", "step"},
    {core::tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}),
     core::tensor::scalar<int64_t>(7)});
  if (!st.is_ok()) {
    std::fprintf(stderr, "checkpoint: %s\n", st.to_string().c_str());
    return 1;
  }
  std::ifstream in{ckpt, std::ios::binary};
  std::string file{std::istreambuf_iterator<char>{in},
                   std::istreambuf_iterator<char>{}};
  // The body alone, after an even byte: the fuzzer puts the header back.
  ok = write(root / "checkpoint" / "two_body",
             std::string(1, '\0') + file.substr(20))
       && ok;
  // .npy files as `actorflow run` reads them: a matrix, a scalar, bools.
  fs::create_directories(root / "npy");
  for (const auto& [name, t] :
       {std::pair{"f32_2x3", core::tensor::from_vector<float>(
                               {2, 3}, {1, -2, 3.5f, 0, 5, 6})},
        std::pair{"i64_scalar", core::tensor::scalar<int64_t>(-7)},
        std::pair{"bool_4", core::tensor::from_vector<bool>(
                              {4}, {true, false, true, true})}}) {
    std::string bytes;
    ok = net::encode_npy(t, &bytes).is_ok() && write(root / "npy" / name, bytes)
         && ok;
  }
  return ok ? 0 : 1;
}
