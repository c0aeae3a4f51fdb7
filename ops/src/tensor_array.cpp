#include "actorflow/ops/tensor_array.hpp"

#include <string>
#include <type_traits>

namespace actorflow::ops {

namespace {

/// A host tensor of zeros.
core::tensor zeros(core::dtype type, const core::shape& s) {
  core::tensor t{type, s};
  core::visit_dtype(type, [&](auto zero) {
    using T = decltype(zero);
    auto* p = t.mutable_data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i)
      p[i] = zero;
  });
  return t;
}

/// `x + y` in a new host tensor (both of one dtype and shape).
core::status add(const core::tensor& x, const core::tensor& y,
                 core::tensor* out) {
  core::status st;
  core::visit_dtype(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>) {
      st = core::unimplemented_error("a gradient array of ",
                                     core::to_string(x.dtype()),
                                     " cannot add two writes");
    } else {
      core::tensor sum{x.dtype(), x.shape()};
      const auto* a = x.data<T>();
      const auto* b = y.data<T>();
      auto* s = sum.mutable_data<T>();
      for (int64_t i = 0; i < x.num_elements(); ++i)
        s[i] = static_cast<T>(a[i] + b[i]);
      *out = std::move(sum);
    }
  });
  return st;
}

} // namespace

tensor_array::tensor_array(tensor_array_options opts)
  : opts_(std::move(opts)),
    items_(static_cast<size_t>(std::max<int64_t>(opts_.size, 0))) {
  // nop
}

core::status tensor_array::check_open() const {
  if (closed_)
    return core::invalid_argument_error("TensorArray '", opts_.name,
                                        "' has already been closed");
  return core::status::ok();
}

core::status tensor_array::write(int64_t index, const core::tensor& value) {
  std::lock_guard<std::mutex> guard{mtx_};
  ACTORFLOW_RETURN_IF_ERROR(check_open());
  if (value.dtype() != opts_.type)
    return core::invalid_argument_error("TensorArray '", opts_.name, "' holds ",
                                        core::to_string(opts_.type),
                                        ", the value written at index ", index,
                                        " is ", core::to_string(value.dtype()));
  auto n = static_cast<int64_t>(items_.size());
  if (index < 0 || (index >= n && !opts_.dynamic_size))
    return core::invalid_argument_error(
      "TensorArray '", opts_.name, "': cannot write index ", index,
      ": the array's size is ", n,
      opts_.dynamic_size ? "" : " and it is not dynamic_size");
  if (!opts_.element_shape.compatible_with(value.shape()))
    return core::invalid_argument_error(
      "TensorArray '", opts_.name, "': the value written at index ", index,
      " has shape ", value.shape().to_string(),
      ", incompatible with the element shape ",
      opts_.element_shape.to_string());
  if (index >= n)
    items_.resize(static_cast<size_t>(index) + 1);
  if (opts_.identical_element_shapes && !opts_.element_shape.fully_defined())
    opts_.element_shape = value.shape();
  auto& e = items_[static_cast<size_t>(index)];
  if (e.read)
    return core::invalid_argument_error("TensorArray '", opts_.name,
                                        "': cannot write index ", index,
                                        ": it was already read");
  if (e.written && !opts_.aggregate_writes)
    return core::invalid_argument_error(
      "TensorArray '", opts_.name, "': index ", index, " was already written");
  if (e.written && e.shape != value.shape())
    return core::invalid_argument_error(
      "TensorArray '", opts_.name, "': cannot add a value of shape ",
      value.shape().to_string(), " to index ", index, " of shape ",
      e.shape.to_string());
  if (e.written && e.value.valid())
    return add(e.value, value, &e.value);
  e.value = value;
  e.shape = value.shape();
  e.written = true;
  return core::status::ok();
}

core::status tensor_array::read_locked(int64_t index, core::tensor* out) {
  ACTORFLOW_RETURN_IF_ERROR(check_open());
  auto gradient = opts_.aggregate_writes;
  auto n = static_cast<int64_t>(items_.size());
  if (index < 0 || (!gradient && index >= n))
    return core::invalid_argument_error("TensorArray '", opts_.name,
                                        "': cannot read index ", index,
                                        ": the array's size is ", n);
  if (index >= n || !items_[static_cast<size_t>(index)].written) {
    // Nothing written: zeros where the shape is known (TensorFlow's rule;
    // a gradient array knows the forward elements' shapes).
    auto shape = opts_.element_shape;
    if (!shape.fully_defined())
      return core::invalid_argument_error(
        "TensorArray '", opts_.name, "': cannot read index ", index,
        ": it was never written (an array whose element_shape is fully "
        "defined reads zeros there; this one's is ",
        shape.to_string(), ")");
    if (index >= n)
      items_.resize(static_cast<size_t>(index) + 1);
    auto& e = items_[static_cast<size_t>(index)];
    e.shape = shape;
    e.written = true;
  }
  auto& e = items_[static_cast<size_t>(index)];
  if (e.cleared)
    return core::invalid_argument_error(
      "TensorArray '", opts_.name, "': cannot read index ", index,
      " twice: it was cleared after the first read (make the array with "
      "clear_after_read = false to read it again)");
  *out = e.value.valid() ? e.value : zeros(opts_.type, e.shape);
  e.read = true;
  if (opts_.clear_after_read) {
    e.value = core::tensor{};
    e.cleared = true;
  }
  return core::status::ok();
}

core::status tensor_array::read(int64_t index, core::tensor* out) {
  std::lock_guard<std::mutex> guard{mtx_};
  return read_locked(index, out);
}

core::status tensor_array::read_many(const std::vector<int64_t>& indices,
                                     std::vector<core::tensor>* out) {
  std::lock_guard<std::mutex> guard{mtx_};
  out->clear();
  out->reserve(indices.size());
  for (auto i : indices) {
    core::tensor t;
    ACTORFLOW_RETURN_IF_ERROR(read_locked(i, &t));
    out->push_back(std::move(t));
  }
  return core::status::ok();
}

core::status tensor_array::size(int64_t* out) const {
  std::lock_guard<std::mutex> guard{mtx_};
  ACTORFLOW_RETURN_IF_ERROR(check_open());
  *out = static_cast<int64_t>(items_.size());
  return core::status::ok();
}

core::shape tensor_array::element_shape() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return opts_.element_shape;
}

void tensor_array::close() {
  std::lock_guard<std::mutex> guard{mtx_};
  items_.clear();
  closed_ = true;
}

core::status
tensor_array::copy_shapes_from(const tensor_array& forward,
                               const std::vector<int64_t>& prepend) {
  std::vector<core::shape> shapes;
  {
    std::lock_guard<std::mutex> guard{forward.mtx_};
    ACTORFLOW_RETURN_IF_ERROR(forward.check_open());
    for (const auto& e : forward.items_) {
      if (!e.written) {
        shapes.push_back(core::shape::unknown());
        continue;
      }
      auto dims = prepend;
      dims.insert(dims.end(), e.shape.dims().begin(), e.shape.dims().end());
      shapes.emplace_back(std::move(dims));
    }
  }
  std::lock_guard<std::mutex> guard{mtx_};
  if (items_.size() < shapes.size())
    items_.resize(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i)
    if (shapes[i].known_rank() && !items_[i].written) {
      items_[i].shape = shapes[i];
      items_[i].written = true;
    }
  return core::status::ok();
}

} // namespace actorflow::ops
