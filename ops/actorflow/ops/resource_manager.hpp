#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"
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

private:
  mutable std::mutex mtx_;
  std::map<std::string, std::map<std::string, std::shared_ptr<variable>>>
    containers_;
};

} // namespace actorflow::ops
