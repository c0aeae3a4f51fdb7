#include "actorflow/ops/resource_manager.hpp"

namespace actorflow::ops {

core::status resource_manager::lookup_or_create(
  const std::string& container, const std::string& name, core::dtype type,
  const core::shape& declared, std::shared_ptr<variable>* out) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto& vars = containers_[container];
  auto& slot = vars[name];
  if (!slot) {
    slot = std::make_shared<variable>(name, type, declared);
  } else if (slot->dtype() != type) {
    return core::invalid_argument_error(
      "variable ", name, " exists with dtype ", core::to_string(slot->dtype()),
      ", requested ", core::to_string(type));
  }
  *out = slot;
  return core::status::ok();
}

std::shared_ptr<variable>
resource_manager::find(const std::string& container,
                       const std::string& name) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = containers_.find(container);
  if (i == containers_.end())
    return nullptr;
  auto j = i->second.find(name);
  return j == i->second.end() ? nullptr : j->second;
}

bool resource_manager::reset(const std::string& container) {
  std::lock_guard<std::mutex> guard{mtx_};
  return containers_.erase(container) > 0;
}

std::vector<std::string> resource_manager::containers() const {
  std::lock_guard<std::mutex> guard{mtx_};
  std::vector<std::string> result;
  for (const auto& kvp : containers_)
    result.push_back(kvp.first);
  return result;
}

void resource_manager::set_queue_factory(queue_factory factory) {
  std::lock_guard<std::mutex> guard{mtx_};
  queue_factory_ = std::move(factory);
}

core::status resource_manager::lookup_or_create_queue(
  const std::string& container, const std::string& name, const queue_spec& spec,
  std::shared_ptr<queue>* out, std::string* handle) {
  std::lock_guard<std::mutex> guard{mtx_};
  *handle = container + ":" + name;
  auto& slot = queues_[*handle];
  if (!slot) {
    if (!queue_factory_) {
      queues_.erase(*handle);
      return core::failed_precondition_error(
        "queue '", name, "' needs a runtime that makes queues (an engine)");
    }
    auto st = queue_factory_(spec, &slot);
    if (!st.is_ok()) {
      queues_.erase(*handle);
      return st;
    }
  } else if (slot->spec().types != spec.types) {
    return core::invalid_argument_error("queue '", name,
                                        "' exists with other component dtypes");
  }
  *out = slot;
  return core::status::ok();
}

std::vector<std::pair<std::string, std::shared_ptr<queue>>>
resource_manager::queues() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return {queues_.begin(), queues_.end()};
}

std::shared_ptr<queue>
resource_manager::find_queue(const std::string& handle) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = queues_.find(handle);
  return i == queues_.end() ? nullptr : i->second;
}

void resource_manager::set_collectives(
  std::shared_ptr<collective_executor> executor) {
  std::lock_guard<std::mutex> guard{mtx_};
  collectives_ = std::move(executor);
}

std::shared_ptr<collective_executor> resource_manager::collectives() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return collectives_;
}

void resource_manager::cancel_step(uint64_t step) {
  std::vector<std::shared_ptr<queue>> all;
  std::shared_ptr<collective_executor> collectives;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    for (const auto& kvp : queues_)
      all.push_back(kvp.second);
    collectives = collectives_;
  }
  for (const auto& q : all)
    q->cancel_step(step);
  if (collectives)
    collectives->cancel_step(step);
}

void resource_manager::clear_queues() {
  std::map<std::string, std::shared_ptr<queue>> dropped;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    dropped.swap(queues_);
  }
}

std::string resource_manager::add_step_resource(const char* kind,
                                                const std::string& name,
                                                step_resource r) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto handle = std::string{kind} + ":" + std::to_string(r.step) + ":"
                + std::to_string(++step_resources_made_) + ":" + name;
  step_resources_.emplace(handle, std::move(r));
  return handle;
}

std::string resource_manager::create_stack(uint64_t step,
                                           const std::string& name,
                                           core::dtype type, int64_t max_size) {
  auto st = std::make_shared<tensor_stack>();
  st->name = name;
  st->type = type;
  st->max_size = max_size;
  return add_step_resource("stack", name, {step, std::move(st), nullptr});
}

std::shared_ptr<tensor_stack>
resource_manager::find_stack(const std::string& handle) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = step_resources_.find(handle);
  return i == step_resources_.end() ? nullptr : i->second.stack;
}

std::string resource_manager::create_tensor_array(uint64_t step,
                                                  tensor_array_options opts) {
  auto name = opts.name;
  return add_step_resource(
    "ta", name,
    {step, nullptr, std::make_shared<tensor_array>(std::move(opts))});
}

std::shared_ptr<tensor_array>
resource_manager::find_tensor_array(const std::string& handle) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = step_resources_.find(handle);
  return i == step_resources_.end() ? nullptr : i->second.array;
}

core::status resource_manager::tensor_array_grad(
  const std::string& handle, const std::string& source,
  const std::vector<int64_t>& prepend, std::string* grad_handle) {
  auto key = handle + "@" + source;
  std::unique_lock<std::mutex> guard{mtx_};
  auto fwd = step_resources_.find(handle);
  if (fwd == step_resources_.end() || fwd->second.array == nullptr)
    return core::not_found_error("no TensorArray '", handle, "' in this step");
  *grad_handle = key;
  if (step_resources_.count(key) != 0)
    return core::status::ok();
  auto forward = fwd->second.array;
  auto step = fwd->second.step;
  guard.unlock();
  tensor_array_options opts;
  opts.name = forward->name() + "@" + source;
  opts.type = forward->type();
  ACTORFLOW_RETURN_IF_ERROR(forward->size(&opts.size));
  auto shape = forward->element_shape();
  if (shape.known_rank()) {
    auto dims = prepend;
    dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
    opts.element_shape = core::shape{std::move(dims)};
  }
  opts.aggregate_writes = true;
  auto grad = std::make_shared<tensor_array>(std::move(opts));
  ACTORFLOW_RETURN_IF_ERROR(grad->copy_shapes_from(*forward, prepend));
  guard.lock();
  // Two iterations may have made it at once: the first one stays.
  step_resources_.try_emplace(key, step_resource{step, nullptr, grad});
  return core::status::ok();
}

void resource_manager::drop_step(uint64_t step) {
  std::vector<step_resource> dropped;
  std::lock_guard<std::mutex> guard{mtx_};
  for (auto i = step_resources_.begin(); i != step_resources_.end();)
    if (i->second.step == step) {
      dropped.push_back(std::move(i->second));
      i = step_resources_.erase(i);
    } else {
      ++i;
    }
}

} // namespace actorflow::ops
