// Fashion-MNIST's IDX files read through a graph of ReadIdx ops.

#include "models/fashion/fashion_data.hpp"

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/io_ops.hpp"

namespace actorflow::apps {

namespace {

core::status read_idx_files(actors::engine& e, const std::string& dir,
                            fashion_data* out) {
  graph::scope s{e.context().ops()};
  std::vector<std::string> fetches;
  for (const char* set : {"train", "t10k"}) {
    auto file = [&](const char* kind) {
      return graph::constant(
        s, core::tensor::scalar(dir + "/" + set + "-" + kind + "-ubyte.gz"));
    };
    auto images = graph::read_idx(s.sub(std::string{set} + "_images"),
                                  file("images-idx3"), core::dtype::uint8);
    auto labels = graph::read_idx(s.sub(std::string{set} + "_labels"),
                                  file("labels-idx1"), core::dtype::uint8);
    fetches.push_back(
      graph::reshape(s, images, std::vector<int64_t>{-1, 784}).name());
    fetches.push_back(labels.name());
  }
  ACTORFLOW_RETURN_IF_ERROR(s.status());
  actors::session sess{e};
  ACTORFLOW_RETURN_IF_ERROR(sess.extend(s.graph_def()));
  std::vector<core::tensor> t;
  ACTORFLOW_RETURN_IF_ERROR(sess.run({}, fetches, {}, &t));
  for (int k : {0, 2})
    if (t[static_cast<size_t>(k)].shape().dim(0)
        != t[static_cast<size_t>(k) + 1].shape().dim(0))
      return core::data_loss_error(
        "Fashion-MNIST in ", dir, " has ",
        t[static_cast<size_t>(k)].shape().dim(0), " images but ",
        t[static_cast<size_t>(k) + 1].shape().dim(0), " labels");
  *out = {t[0], t[1], t[2], t[3]};
  return core::status::ok();
}

} // namespace

core::status load_fashion_mnist(actors::engine& e, const std::string& dir,
                                fashion_data* out) {
  auto where = dir.empty() ? std::string{fashion_mnist_dir} : dir;
  auto st = read_idx_files(e, where, out);
  if (!st.is_ok())
    return core::status{
      st.code(),
      st.message()
        + "\n  Fashion-MNIST comes with Debian's dataset-fashion-mnist "
          "(scripts/setup.sh installs it); --data-dir points elsewhere"};
  return st;
}

} // namespace actorflow::apps
