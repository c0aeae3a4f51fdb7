#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "actorflow/core/node_def.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::graph {

/// A dataflow graph: node_defs in insertion order, looked up by name.
///
/// The graph is plain data; `validate` checks it against an op registry.
class graph {
public:
  /// Appends `node`; `already_exists` if its name is taken.
  core::status add(core::node_def node);

  /// Returns the node named `name`, or nullptr.
  const core::node_def* find(const std::string& name) const;
  core::node_def* find(const std::string& name);

  /// Returns the index of node `name`, or -1.
  int index_of(const std::string& name) const;

  const std::vector<core::node_def>& nodes() const noexcept {
    return nodes_;
  }

  std::vector<core::node_def>& mutable_nodes() noexcept {
    return nodes_;
  }

  size_t size() const noexcept {
    return nodes_.size();
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

private:
  std::vector<core::node_def> nodes_;
  std::unordered_map<std::string, int> index_;
};

} // namespace actorflow::graph
