#include "actorflow/graph/gradient_registry.hpp"

#include <algorithm>

#include "gradients/grad_util.hpp"

namespace actorflow::graph {

gradient_registry gradient_registry::with_builtins() {
  gradient_registry r;
  detail::register_math_gradients(r);
  detail::register_array_gradients(r);
  detail::register_dispatch_gradients(r);
  detail::register_nn_gradients(r);
  detail::register_control_flow_gradients(r);
  detail::register_tensor_array_gradients(r);
  detail::register_list_gradients(r);
  return r;
}

void gradient_registry::add(const std::string& op, gradient_fn fn) {
  fns_[op] = std::move(fn);
}

void gradient_registry::add_not_differentiable(const std::string& op) {
  add(op, [](const scope&, const gradient_op&, const std::vector<output>&,
             std::vector<output>*) { return core::status::ok(); });
}

const gradient_fn* gradient_registry::find(const std::string& op) const {
  auto it = fns_.find(op);
  return it == fns_.end() ? nullptr : &it->second;
}

std::vector<std::string> gradient_registry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, fn] : fns_)
    out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace actorflow::graph
