#pragma once

// The task a device belongs to.

#include <string>

#include "actorflow/core/device_name.hpp"

namespace actorflow::actors::detail {

/// The task (`/job:J/task:T`) of a device's name; the name itself if it
/// names no job and task.
inline std::string task_of(const std::string& device) {
  auto n = core::device_name::parse(device);
  if (!n || !n->job || !n->task)
    return device;
  return "/job:" + *n->job + "/task:" + std::to_string(*n->task);
}

} // namespace actorflow::actors::detail
