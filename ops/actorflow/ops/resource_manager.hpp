#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/ops/queue.hpp"
#include "actorflow/ops/variable.hpp"

namespace actorflow::ops {

/// A stack of tensors (StackV2), where a while loop's gradient keeps the
/// forward values its backward loop reads in reverse. It lives until the
/// end of the step that made it.
struct tensor_stack {
  std::string name;
  core::dtype type = core::dtype::invalid;
  int64_t max_size = -1; ///< -1: unbounded
  std::mutex mtx;
  std::vector<core::tensor> items;
};

/// Named containers of variables. An engine owns one; the
/// container "" is the default one and lives as long as the engine.
/// Sessions of one engine share containers.
class resource_manager {
public:
  /// Returns variable `name` in `container`, creating it uninitialised.
  /// An existing variable of another dtype is `invalid_argument`.
  core::status lookup_or_create(const std::string& container,
                                const std::string& name, core::dtype type,
                                const core::shape& declared,
                                std::shared_ptr<variable>* out);

  /// Returns variable `name`, or nullptr.
  std::shared_ptr<variable> find(const std::string& container,
                                 const std::string& name) const;

  /// Drops every variable of `container`; steps holding one keep it alive
  /// until they finish. Returns false if the container did not exist.
  bool reset(const std::string& container);

  /// Returns the names of the existing containers.
  std::vector<std::string> containers() const;

  /// Sets how queues are made (the runtime's queue actors).
  void set_queue_factory(queue_factory factory);

  /// Returns queue `name` of `container` and its handle (the string the
  /// queue ops pass around), creating it from `spec` with the factory. An
  /// existing queue with other component dtypes is `invalid_argument`.
  core::status lookup_or_create_queue(const std::string& container,
                                      const std::string& name,
                                      const queue_spec& spec,
                                      std::shared_ptr<queue>* out,
                                      std::string* handle);

  /// Returns the queue behind `handle`, or nullptr.
  std::shared_ptr<queue> find_queue(const std::string& handle) const;

  /// Cancels the waiting queue operations of step `step` in every queue
  /// (see queue::cancel_step): the step failed, so they would wait for
  /// nothing.
  void cancel_step(uint64_t step);

  /// Drops every queue (the runtime does before it stops).
  void clear_queues();

  /// Makes a stack for step `step` and returns its handle.
  std::string create_stack(uint64_t step, const std::string& name,
                           core::dtype type, int64_t max_size);

  /// Returns the stack behind `handle`, or nullptr (never made, or its step
  /// ended).
  std::shared_ptr<tensor_stack> find_stack(const std::string& handle) const;

  /// Drops the stacks of step `step`; the runtime calls it when the step
  /// ends.
  void drop_step(uint64_t step);

  /// Returns a step id no session of this runtime used before.
  uint64_t next_step_id() noexcept {
    return next_step_.fetch_add(1);
  }

private:
  mutable std::mutex mtx_;
  std::map<std::string, std::map<std::string, std::shared_ptr<variable>>>
    containers_;
  queue_factory queue_factory_;
  std::map<std::string, std::shared_ptr<queue>> queues_;
  std::map<std::string, std::pair<uint64_t, std::shared_ptr<tensor_stack>>>
    stacks_;
  uint64_t stacks_made_ = 0;
  std::atomic<uint64_t> next_step_{1};
};

} // namespace actorflow::ops
