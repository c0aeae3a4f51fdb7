#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "actorflow/core/node_def.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::graph {

class graph_index;

/// A dataflow graph: node_defs in insertion order, looked up by name.
///
/// The graph is plain data; `validate` checks it against an op registry.
/// It keeps its edges parsed (`edges`) until it changes.
class graph {
public:
  graph() = default;
  graph(const graph& other);
  graph& operator=(const graph& other);
  graph(graph&& other) noexcept = default;
  graph& operator=(graph&& other) noexcept = default;
  ~graph();

  /// Appends `node`; `already_exists` if its name is taken.
  core::status add(core::node_def node);

  /// Returns the node named `name`, or nullptr.
  const core::node_def* find(const std::string& name) const;

  /// Returns the node named `name` to change, or nullptr. Forgets the
  /// edges: call it only to change the node.
  core::node_def* mutable_find(const std::string& name);

  /// Returns the index of node `name`, or -1.
  int index_of(const std::string& name) const;

  const std::vector<core::node_def>& nodes() const noexcept {
    return nodes_;
  }

  /// The nodes to change. Forgets the edges: call it only to change them.
  std::vector<core::node_def>& mutable_nodes() noexcept {
    forget_edges();
    return nodes_;
  }

  size_t size() const noexcept {
    return nodes_.size();
  }

  /// Node `i`'s attrs to change; the edges stay (they do not depend on
  /// attrs).
  core::attr_map& mutable_attrs(size_t i) {
    return nodes_[i].attrs;
  }

  /// Places node `i` on `device`; the edges stay.
  void set_device(size_t i, std::string device) {
    nodes_[i].device = std::move(device);
  }

  /// Returns whether a node named `name` exists.
  bool contains(const std::string& name) const {
    return index_.count(name) != 0;
  }

  /// Returns `prefix` if unused, else `prefix_1`, `prefix_2`, ...
  std::string unique_name(const std::string& prefix) const;

  /// Rebuilds the name index after `mutable_nodes()` was edited; fails on a
  /// duplicate name.
  core::status reindex();

  /// Appends every node of `other`; fails on a name clash, leaving this
  /// graph unchanged.
  core::status extend(const graph& other);

  /// The graph's edges seen from both ends, parsed once: built at the
  /// first call after a change (`add`, `extend`, `reindex`,
  /// `mutable_nodes`, `mutable_find`) and shared, by copies of the graph
  /// too, until the next. `graph_index` is internal to the library
  /// (graph/src/compile/graph_index.hpp). Safe to call from several
  /// threads on a graph none of them changes.
  std::shared_ptr<const graph_index> edges() const;

private:
  void forget_edges() noexcept;

  std::vector<core::node_def> nodes_;
  std::unordered_map<std::string, int> index_;
  /// Read and written with std::atomic_load/atomic_store: `edges` builds
  /// it lazily on a const graph.
  mutable std::shared_ptr<const graph_index> edges_;
};

} // namespace actorflow::graph
