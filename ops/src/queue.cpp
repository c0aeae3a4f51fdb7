#include "actorflow/ops/queue.hpp"

namespace actorflow::ops {

queue::queue(queue_spec spec) : spec_(std::move(spec)) {
  // nop
}

queue::~queue() {
  // nop
}

core::status queue::check(const std::vector<core::tensor>& components,
                          bool many) const {
  if (components.size() != spec_.types.size())
    return core::invalid_argument_error("queue '", spec_.name, "' takes ",
                                        spec_.types.size(), " components, got ",
                                        components.size());
  int64_t rows = -1;
  for (size_t i = 0; i < components.size(); ++i) {
    const auto& c = components[i];
    if (c.dtype() != spec_.types[i])
      return core::invalid_argument_error(
        "component ", i, " of queue '", spec_.name, "' is ",
        core::to_string(spec_.types[i]), ", got ", core::to_string(c.dtype()));
    auto element = c.shape();
    if (many) {
      if (element.rank() < 1)
        return core::invalid_argument_error(
          "enqueue_many needs components of rank >= 1, component ", i,
          " is a scalar");
      if (rows >= 0 && element.dim(0) != rows)
        return core::invalid_argument_error(
          "enqueue_many components differ in dimension 0: ", rows, " and ",
          element.dim(0));
      rows = element.dim(0);
      element = core::shape{
        std::vector<int64_t>(element.dims().begin() + 1, element.dims().end())};
    }
    if (!spec_.shapes.empty() && !spec_.shapes[i].compatible_with(element))
      return core::invalid_argument_error(
        "component ", i, " of queue '", spec_.name, "' has shape ",
        spec_.shapes[i].to_string(), ", got ", element.to_string());
  }
  return core::status::ok();
}

} // namespace actorflow::ops
