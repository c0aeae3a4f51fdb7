#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/ops/collective.hpp"
#include "actorflow/ops/queue.hpp"
#include "actorflow/ops/tensor_array.hpp"
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

  /// Returns every queue and its handle (for metrics).
  std::vector<std::pair<std::string, std::shared_ptr<queue>>> queues() const;

  /// Sets the runtime's collective executor (its collective actor).
  void set_collectives(std::shared_ptr<collective_executor> executor);

  /// The collective executor, or nullptr (an engine without one).
  std::shared_ptr<collective_executor> collectives() const;

  /// Cancels the waiting queue operations and collectives of step `step`
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

  /// Makes a tensor array for step `step` and returns its handle.
  std::string create_tensor_array(uint64_t step, tensor_array_options opts);

  /// Returns the tensor array behind `handle`, or nullptr (never made, or
  /// its step ended).
  std::shared_ptr<tensor_array>
  find_tensor_array(const std::string& handle) const;

  /// Returns the handle of the gradient array of the array behind `handle`
  /// for gradient computation `source` (TensorArrayGradV3), making it on
  /// first use: of the forward array's dtype and current size, its
  /// elements' shapes after `prepend`, adding what is written twice.
  core::status tensor_array_grad(const std::string& handle,
                                 const std::string& source,
                                 const std::vector<int64_t>& prepend,
                                 std::string* grad_handle);

  /// Drops the stacks and tensor arrays of step `step`; the runtime calls
  /// it when the step ends.
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
  std::shared_ptr<collective_executor> collectives_;
  std::map<std::string, std::shared_ptr<queue>> queues_;
  /// A stack or a tensor array, which lives as long as its step.
  struct step_resource {
    uint64_t step = 0;
    std::shared_ptr<tensor_stack> stack;
    std::shared_ptr<tensor_array> array;
  };
  std::string add_step_resource(const char* kind, const std::string& name,
                                step_resource r);
  std::map<std::string, step_resource> step_resources_;
  uint64_t step_resources_made_ = 0;
  std::atomic<uint64_t> next_step_{1};
};

} // namespace actorflow::ops
