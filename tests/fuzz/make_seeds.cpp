// Writes the fuzz targets' seed corpora: valid graph messages (a layer
// over two devices, a while loop with its gradient, a cond, a queue) into
// <dir>/graph, valid checkpoints, whole and as bodies, into
// <dir>/checkpoint, .npy files into <dir>/npy, and the messages that cross
// processes into <dir>/wire.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <caf/binary_serializer.hpp>

#include "actorflow/actorflow.hpp"
#include "actorflow/interop/npy.hpp"
#include "checkpoint_file.hpp"
#include "transport/wire_codec.hpp"

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
    ok = interop::encode_npy(t, &bytes).is_ok()
         && write(root / "npy" / name, bytes) && ok;
  }
  // Messages between processes as BASP carries them, after the byte that
  // picks their decoder (wire_fuzzer.cpp); and a bulk header.
  fs::create_directories(root / "wire");
  auto message = [&](const char* name, char kind, auto x) {
    std::vector<char> bytes;
    caf::binary_serializer sink{nullptr, bytes};
    if (inspect(sink, x)) {
      std::fprintf(stderr, "%s: cannot encode\n", name);
      ok = false;
      return;
    }
    ok = write(root / "wire" / name,
               std::string(1, kind) + std::string(bytes.begin(), bytes.end()))
         && ok;
  };
  auto matrix = core::tensor::from_vector<float>({2, 2}, {1, 2, 3, 4});
  actors::value_msg value{actors::tag{7, 3, 2}, 1, actors::value_state::live,
                          ops::entry{matrix, nullptr}, 5};
  message("value", 0, value);
  {
    graph::scope s;
    auto x = graph::placeholder(s.sub("x"), dtype::float32, {2});
    graph::relu(s, x);
    actors::partition_set set;
    set.graphs.push_back(s.graph_def());
    message("partition_set", 1, set);
  }
  message(
    "run_step", 2,
    actors::run_step_msg{
      1, 9, {actors::indexed_tensor{0, actors::value_state::live, matrix}}});
  {
    actors::step_report report;
    report.step = 9;
    report.fetches.push_back(
      actors::indexed_tensor{0, actors::value_state::dead, {}});
    report.error
      = core::invalid_argument_error("x is bad").with_context("n", "Op");
    // A traced step's firings ride along.
    auto& device = report.stats.devices.emplace_back();
    device.device = "/job:w/task:0/device:cpu:0";
    device.nodes.push_back(actors::node_exec_stats{"n", "Op", "loop", 7, 2, 100,
                                                   150, 64, "edge_1_n"});
    report.stats.process_messages = 1;
    message("step_report", 3, report);
  }
  {
    auto header = actors::detail::encode_bulk_header(3, value);
    uint64_t payload = matrix.bytes();
    std::string bytes(1, '\x04');
    bytes.append(reinterpret_cast<const char*>(&payload), 8);
    bytes.append(reinterpret_cast<const char*>(header.begin()),
                 header.size() * sizeof(capnp::word));
    ok = write(root / "wire" / "bulk_header", bytes) && ok;
  }
  return ok ? 0 : 1;
}
