#include "actorflow/graph/output.hpp"

namespace actorflow::graph {

output::output(std::shared_ptr<detail::builder_state> state, std::string node,
               int port, core::dtype type, core::shape s, bool is_ref)
  : state_(std::move(state)), node_(std::move(node)), port_(port), type_(type),
    shape_(std::move(s)), is_ref_(is_ref) {
  // nop
}

std::string output::name() const {
  return port_ == 0 ? node_ : node_ + ":" + std::to_string(port_);
}

} // namespace actorflow::graph
