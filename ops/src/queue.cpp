#include "actorflow/ops/queue.hpp"

#include <cstring>

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

std::vector<core::tensor> queue::unstack_rows(const core::tensor& t) {
  const auto& dims = t.shape().dims();
  core::shape row{std::vector<int64_t>(dims.begin() + 1, dims.end())};
  auto n = dims.empty() ? 0 : dims[0];
  auto per_row = row.num_elements();
  std::vector<core::tensor> rows;
  rows.reserve(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    core::tensor out{t.dtype(), row};
    if (t.dtype() == core::dtype::string) {
      const auto* src = t.data<std::string>() + r * per_row;
      std::copy(src, src + per_row, out.mutable_data<std::string>());
    } else if (out.bytes() > 0) {
      std::memcpy(out.raw_mutable_data(),
                  static_cast<const char*>(t.raw_data())
                    + static_cast<size_t>(r) * out.bytes(),
                  out.bytes());
    }
    rows.push_back(std::move(out));
  }
  return rows;
}

core::tensor queue::stack_rows(const std::vector<core::tensor>& rows,
                               core::dtype type, const core::shape& row) {
  auto dims = row.dims();
  dims.insert(dims.begin(), static_cast<int64_t>(rows.size()));
  core::tensor out{type, core::shape{std::move(dims)}};
  auto per_row = row.num_elements();
  for (size_t r = 0; r < rows.size(); ++r) {
    if (type == core::dtype::string) {
      const auto* src = rows[r].data<std::string>();
      std::copy(src, src + per_row,
                out.mutable_data<std::string>()
                  + static_cast<int64_t>(r) * per_row);
    } else if (rows[r].bytes() > 0) {
      std::memcpy(static_cast<char*>(out.raw_mutable_data())
                    + r * rows[r].bytes(),
                  rows[r].raw_data(), rows[r].bytes());
    }
  }
  return out;
}

} // namespace actorflow::ops
