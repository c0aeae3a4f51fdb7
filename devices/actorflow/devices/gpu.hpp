#pragma once

#include <string>

#include "actorflow/core/status.hpp"

namespace actorflow::devices {

class device_set;

/// Adds this process's GPUs to `devices` as `/job:J/task:T/device:gpu:N`,
/// at most `max_count` of them (negative: all). Returns how many were
/// added: none where actorflow was built without CUDA or no GPU is visible.
/// A GPU that is visible but fails to start (no memory for its streams,
/// say) is an error naming it.
core::status add_gpu_devices(device_set& devices, int max_count,
                             const std::string& job, int task, int* added);

/// Returns whether this build has the CUDA device and kernels.
bool cuda_enabled() noexcept;

/// Returns how many GPUs the CUDA driver sees (0 without CUDA, a driver or
/// a GPU).
int visible_gpus() noexcept;

} // namespace actorflow::devices
