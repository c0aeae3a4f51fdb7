#pragma once

// Internal: the shared state of every scope building one graph.

#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "actorflow/graph/gradient_registry.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace actorflow::graph::detail {

struct loop_record;
struct cond_record;
class flow_context;

struct builder_state : std::enable_shared_from_this<builder_state> {
  /// Owns a registry of the built-in ops unless the user gave one.
  std::unique_ptr<ops::op_registry> own_registry;
  const ops::op_registry* registry = nullptr;
  graph g;
  core::status first_error;
  /// Loop frame names handed out by `scope::unique_frame_name`.
  std::unordered_set<std::string> frame_names;

  /// What shape inference found for one output of a node.
  struct output_info {
    ops::arg_type type;
    core::shape shape;
  };

  /// The outputs of each node built, for `scope::output_of`.
  std::unordered_map<std::string, std::vector<output_info>> outputs;
  /// Nodes the graph's initializer runs (`scope::add_initializer`).
  std::vector<std::string> initializers;
  /// The predicate (node, port) of each Merge a `cond` built, for the
  /// Merge's gradient.
  std::unordered_map<std::string, std::pair<std::string, int>> cond_preds;
  /// The conds built, for the gradients of loops around them.
  std::vector<std::shared_ptr<cond_record>> conds;
  /// The while loops built, by each of their Exits, for their gradients.
  std::unordered_map<std::string, std::shared_ptr<loop_record>> loops;
  /// Gradient functions, made with the built-in ones on first use.
  std::unique_ptr<gradient_registry> gradients;

  /// The region of control flow being built (a cond branch or a loop's
  /// condition or body, while its function runs), or nullptr; every node
  /// goes there unless its scope is pinned to a region.
  std::shared_ptr<flow_context> region;
  /// The scope operators build in (a `scope_guard`'s, or the branch's or
  /// body's while its function runs), or nullptr for the graph's root.
  const scope* current = nullptr;
};

/// Makes `region` the region being built and `current` the scope operators
/// build in, while it lives; restores both after.
class build_guard {
public:
  build_guard(builder_state& st, std::shared_ptr<flow_context> region,
              const scope* current)
    : st_(st), region_(std::exchange(st.region, std::move(region))),
      current_(std::exchange(st.current, current)) {
    // nop
  }

  build_guard(const build_guard&) = delete;
  build_guard& operator=(const build_guard&) = delete;

  ~build_guard() {
    st_.region = std::move(region_);
    st_.current = current_;
  }

private:
  builder_state& st_;
  std::shared_ptr<flow_context> region_;
  const scope* current_;
};

} // namespace actorflow::graph::detail
