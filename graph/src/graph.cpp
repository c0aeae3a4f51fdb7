#include "actorflow/graph/graph.hpp"

#include "compile/graph_index.hpp"

namespace actorflow::graph {

graph::graph(const graph& other)
  : nodes_(other.nodes_), index_(other.index_),
    edges_(std::atomic_load(&other.edges_)) {
  // nop
}

graph& graph::operator=(const graph& other) {
  if (this != &other) {
    nodes_ = other.nodes_;
    index_ = other.index_;
    std::atomic_store(&edges_, std::atomic_load(&other.edges_));
  }
  return *this;
}

graph::~graph() = default;

void graph::forget_edges() noexcept {
  if (edges_ != nullptr)
    std::atomic_store(&edges_, std::shared_ptr<const graph_index>{});
}

std::shared_ptr<const graph_index> graph::edges() const {
  auto known = std::atomic_load(&edges_);
  if (known != nullptr)
    return known;
  // Two threads may both build it; either result is the same.
  auto built = std::make_shared<const graph_index>(*this);
  std::atomic_store(&edges_, built);
  return built;
}

core::status graph::add(core::node_def node) {
  if (node.name.empty())
    return core::invalid_argument_error("a node needs a name (op ", node.op,
                                        ")");
  if (index_.count(node.name) != 0)
    return core::already_exists_error("duplicate node name '", node.name, "'")
      .with_context(node.name, node.op);
  forget_edges();
  index_.emplace(node.name, static_cast<int>(nodes_.size()));
  nodes_.push_back(std::move(node));
  return core::status::ok();
}

const core::node_def* graph::find(const std::string& name) const {
  auto i = index_.find(name);
  return i == index_.end() ? nullptr : &nodes_[static_cast<size_t>(i->second)];
}

core::node_def* graph::mutable_find(const std::string& name) {
  auto i = index_.find(name);
  if (i != index_.end())
    forget_edges();
  return i == index_.end() ? nullptr : &nodes_[static_cast<size_t>(i->second)];
}

int graph::index_of(const std::string& name) const {
  auto i = index_.find(name);
  return i == index_.end() ? -1 : i->second;
}

std::string graph::unique_name(const std::string& prefix) const {
  if (!contains(prefix))
    return prefix;
  for (int i = 1;; ++i) {
    auto candidate = prefix + "_" + std::to_string(i);
    if (!contains(candidate))
      return candidate;
  }
}

core::status graph::reindex() {
  forget_edges();
  index_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (!index_.emplace(nodes_[i].name, static_cast<int>(i)).second)
      return core::already_exists_error("duplicate node name '", nodes_[i].name,
                                        "'")
        .with_context(nodes_[i].name, nodes_[i].op);
  return core::status::ok();
}

core::status graph::extend(const graph& other) {
  for (const auto& node : other.nodes_)
    if (contains(node.name))
      return core::already_exists_error("duplicate node name '", node.name, "'")
        .with_context(node.name, node.op);
  for (const auto& node : other.nodes_)
    add(node).ignore();
  return core::status::ok();
}

} // namespace actorflow::graph
