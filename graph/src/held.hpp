#pragma once

// Internal: scopes and outputs that the builder state keeps about itself.

#include <memory>
#include <utility>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"
#include "builder_state.hpp"

namespace actorflow::graph::detail {

/// Returns a pointer to `st` that does not own it (an empty control block):
/// for what the state keeps of itself, which must not keep it alive.
inline std::shared_ptr<builder_state> unowned(builder_state* st) {
  return std::shared_ptr<builder_state>{std::shared_ptr<builder_state>{}, st};
}

/// Returns `st` owned again, or nullptr for none.
inline std::shared_ptr<builder_state> owned(builder_state* st) {
  return st != nullptr ? st->shared_from_this() : nullptr;
}

/// Returns `x` referring to `state` (owning it or not).
inline output rebind(const output& x, std::shared_ptr<builder_state> state) {
  if (!x.valid())
    return {};
  return output{std::move(state), x.node_name(), x.port(),
                x.dtype(),        x.shape(),     x.is_ref()};
}

/// A scope or output that lives inside the builder state (the records of
/// conds and loops, the regions built): it refers to the state without
/// owning it, since the state owns it, and hands out copies that own it
/// again. The state owns every `held`, and a `held` is read only while
/// somebody builds, so the state is alive whenever one is read.
template <class T>
class held {
public:
  held() = default;

  held(const T& x) : value_(rebind(x, unowned(x.state().get()))) {
    // nop
  }

  /// The value, owning its state.
  T get() const {
    return rebind(value_, owned(value_.state().get()));
  }

  /// The value without touching the state's reference count: for reading
  /// names, ports and types.
  const T& peek() const noexcept {
    return value_;
  }

private:
  T value_;
};

} // namespace actorflow::graph::detail
