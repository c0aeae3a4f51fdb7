#pragma once

// Internal: the regions of a while loop being built, and what a loop's
// gradient needs to know of a loop built earlier.

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/scope.hpp"
#include "builder_util.hpp"
#include "flow_context.hpp"
#include "held.hpp"

namespace actorflow::graph::detail {

/// The condition or the body of a loop: outside tensors come in through a
/// constant Enter of the loop's frame; the two share their captures.
class loop_context : public detail::flow_context {
public:
  struct shared {
    held<scope> outer;
    std::string frame;
    int64_t parallel_iterations;
    std::unordered_map<std::string, held<output>> captured;
    std::vector<std::string> entries;
    std::vector<std::string> invariants;
    /// Where a captured tensor comes from instead, when set and it returns
    /// a valid output (a loop gradient's stack pops): `inside` says the
    /// output is already inside the loop, else it is entered as usual.
    /// `device` is the request of the node that reads it.
    std::function<output(const output& x, const std::string& device,
                         bool* inside)>
      source;
  };

  loop_context(std::shared_ptr<shared> loop,
               std::shared_ptr<flow_context> outer_ctx, std::string pivot)
    : flow_context(std::move(outer_ctx)), loop_(std::move(loop)),
      pivot_(std::move(pivot)) {
    for (const auto& e : loop_->entries)
      add_entry(e);
    for (const auto& e : loop_->invariants)
      add_invariant(e);
  }

  output capture(const output& x, const std::string& device) override {
    auto key = x.name();
    if (auto i = loop_->captured.find(key); i != loop_->captured.end())
      return i->second.get();
    // A value made inside the loop by `source` is made once per device
    // that reads it (a stack per device: no value crosses twice).
    auto local = key + "@" + device;
    if (auto i = loop_->captured.find(local); i != loop_->captured.end())
      return i->second.get();
    auto from = x;
    if (loop_->source) {
      bool inside = false;
      auto y = loop_->source(x, device, &inside);
      if (y.valid() && inside) {
        loop_->captured[local] = y;
        return y;
      }
      if (y.valid())
        from = y;
    }
    // A value's Enter goes with the node that reads it (a TensorArray's
    // handle read on another device than the loop's); a reference's with
    // its variable.
    auto at = loop_->outer.get();
    auto wanted = from.is_ref() ? requested_device(at, from) : device;
    if (!wanted.empty())
      at = at.with_device(wanted);
    auto in = detail::first(
      at.add_node(from.is_ref() ? "RefEnter" : "Enter", "Enter", {from},
                  {{"T", from.dtype()},
                   {"frame_name", loop_->frame},
                   {"is_constant", true},
                   {"parallel_iterations", loop_->parallel_iterations}}));
    if (!in.valid())
      return {};
    loop_->invariants.push_back(in.node_name());
    add_invariant(in.node_name());
    loop_->captured[key] = in;
    return in;
  }

  const std::string& pivot() const override {
    return pivot_;
  }

private:
  std::shared_ptr<shared> loop_;
  std::string pivot_;
};

/// A while loop as `while_loop` built it, for its gradient: its frame's
/// regions and its nodes per loop variable (the first variable is the
/// maximum_iterations counter when `counted`).
struct loop_record {
  std::shared_ptr<loop_context::shared> loop;
  std::shared_ptr<loop_context> cond, body;
  std::vector<std::string> enters, merges, switches, exits, body_in;
  std::vector<held<output>> next; ///< what each NextIteration passes on
  std::string pivot;              ///< the LoopCond
  /// The last node `while_loop` built for the loop (its last
  /// NextIteration); gradients add nodes to the loop later.
  std::string last;
  bool counted = false;

  /// Whether `node` belongs to the loop's frame.
  bool contains(const std::string& node) const {
    return cond->contains(node) || body->contains(node)
           || std::find(loop->entries.begin(), loop->entries.end(), node)
                != loop->entries.end()
           || std::find(loop->invariants.begin(), loop->invariants.end(), node)
                != loop->invariants.end()
           || std::find(exits.begin(), exits.end(), node) != exits.end();
  }
};

/// A cond as `cond` built it: its predicate, the regions of its branches
/// (false, true) and its pivot Switch.
struct cond_record {
  held<output> pred;
  std::shared_ptr<flow_context> branches[2];
  std::string pivot_switch;
};

/// `graph::while_loop`, with `source` for the loop's captures (see
/// loop_context::shared::source); records the loop for its gradient.
std::vector<output> build_while_loop(
  const scope& s, const loop_cond_fn& cond_fn, const loop_body_fn& body_fn,
  const std::vector<output>& given_vars, const while_options& options,
  std::function<output(const output&, const std::string&, bool*)> source);

} // namespace actorflow::graph::detail
