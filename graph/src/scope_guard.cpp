#include "actorflow/graph/scope_guard.hpp"

#include <utility>

#include "builder_state.hpp"

namespace actorflow::graph {

scope_guard::scope_guard(const scope& s)
  : scope_(s), previous_(std::exchange(scope_.state_->current, &scope_)) {
  // nop
}

scope_guard::~scope_guard() {
  scope_.state_->current = previous_;
}

} // namespace actorflow::graph
