#pragma once

#include <memory>
#include <string_view>

#include <spdlog/logger.h>

namespace actorflow::core {

/// Returns actorflow's logger ("actorflow"); quiet (warnings and worse) until
/// `set_log_level` or `ACTORFLOW_LOG_LEVEL` says otherwise.
spdlog::logger& log();

/// Sets the level by name: trace, debug, info, warn, error, critical, off.
/// Returns false for an unknown name.
bool set_log_level(std::string_view level);

} // namespace actorflow::core
