#pragma once

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

  /// Drops every queue (the runtime does before it stops).
  void clear_queues();

private:
  mutable std::mutex mtx_;
  std::map<std::string, std::map<std::string, std::shared_ptr<variable>>>
    containers_;
  queue_factory queue_factory_;
  std::map<std::string, std::shared_ptr<queue>> queues_;
};

} // namespace actorflow::ops
