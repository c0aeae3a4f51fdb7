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

std::shared_ptr<queue>
resource_manager::find_queue(const std::string& handle) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = queues_.find(handle);
  return i == queues_.end() ? nullptr : i->second;
}

void resource_manager::cancel_step(uint64_t step) {
  std::vector<std::shared_ptr<queue>> all;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    for (const auto& kvp : queues_)
      all.push_back(kvp.second);
  }
  for (const auto& q : all)
    q->cancel_step(step);
}

void resource_manager::clear_queues() {
  std::map<std::string, std::shared_ptr<queue>> dropped;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    dropped.swap(queues_);
  }
}

std::string resource_manager::create_stack(uint64_t step,
                                           const std::string& name,
                                           core::dtype type, int64_t max_size) {
  auto st = std::make_shared<tensor_stack>();
  st->name = name;
  st->type = type;
  st->max_size = max_size;
  std::lock_guard<std::mutex> guard{mtx_};
  auto handle = "stack:" + std::to_string(step) + ":"
                + std::to_string(++stacks_made_) + ":" + name;
  stacks_.emplace(handle, std::make_pair(step, std::move(st)));
  return handle;
}

std::shared_ptr<tensor_stack>
resource_manager::find_stack(const std::string& handle) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = stacks_.find(handle);
  return i == stacks_.end() ? nullptr : i->second.second;
}

void resource_manager::drop_step(uint64_t step) {
  std::vector<std::shared_ptr<tensor_stack>> dropped;
  std::lock_guard<std::mutex> guard{mtx_};
  for (auto i = stacks_.begin(); i != stacks_.end();)
    if (i->second.first == step) {
      dropped.push_back(std::move(i->second.second));
      i = stacks_.erase(i);
    } else {
      ++i;
    }
}

} // namespace actorflow::ops
