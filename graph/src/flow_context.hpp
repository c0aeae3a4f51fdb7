#pragma once

// Internal: a region of control flow being built, a branch of a cond or the
// body of a loop. Scopes that carry one route every input made outside the
// region through `capture` (a Switch for a branch, a constant Enter for a
// loop) and anchor nodes without data inputs to the region's pivot, so
// that they are dead with an untaken branch and run once per iteration.

#include <memory>
#include <string>
#include <unordered_set>

#include "actorflow/graph/output.hpp"

namespace actorflow::graph::detail {

class flow_context {
public:
  explicit flow_context(std::shared_ptr<flow_context> outer)
    : outer_(std::move(outer)) {
    // nop
  }

  virtual ~flow_context() = default;

  /// Returns `x`, made outside this region, as seen inside it by a node
  /// asking for `device` (empty: no request).
  virtual output capture(const output& x, const std::string& device) = 0;

  /// The node every node without data inputs gets a control edge from.
  virtual const std::string& pivot() const = 0;

  /// Whether a node was built inside this region (or is one of its entry
  /// points, whose outputs are already inside).
  bool contains(const std::string& node) const {
    return members_.count(node) != 0 || invariants_.count(node) != 0;
  }

  /// Whether a node is a loop constant of this region: its value is the
  /// same in every iteration, so it does not start one.
  bool is_invariant(const std::string& node) const {
    return invariants_.count(node) != 0;
  }

  /// Records a node built inside this region, and so inside the regions
  /// around it.
  void add_member(const std::string& node) {
    for (auto* c = this; c != nullptr; c = c->outer_.get())
      c->members_.insert(node);
  }

protected:
  /// Records an entry point (a Switch or Enter built outside the region
  /// whose output is inside it).
  void add_entry(const std::string& node) {
    members_.insert(node);
  }

  void add_invariant(const std::string& node) {
    invariants_.insert(node);
  }

  std::shared_ptr<flow_context> outer_;

private:
  std::unordered_set<std::string> members_;
  std::unordered_set<std::string> invariants_;
};

} // namespace actorflow::graph::detail
