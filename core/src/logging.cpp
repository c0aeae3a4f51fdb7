#include "actorflow/core/logging.hpp"

#include <cstdlib>
#include <string>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace actorflow::core {

namespace {

std::shared_ptr<spdlog::logger> make_logger() {
  auto result = spdlog::get("actorflow");
  if (!result)
    result = spdlog::stderr_color_mt("actorflow");
  result->set_level(spdlog::level::warn);
  if (auto* env = std::getenv("ACTORFLOW_LOG_LEVEL")) {
    auto lvl = spdlog::level::from_str(env);
    if (lvl != spdlog::level::off || std::string{env} == "off")
      result->set_level(lvl);
  }
  return result;
}

} // namespace

spdlog::logger& log() {
  // The logger lives in spdlog's registry; this only caches the lookup.
  static auto instance = make_logger();
  return *instance;
}

bool set_log_level(std::string_view level) {
  std::string name{level};
  auto lvl = spdlog::level::from_str(name);
  if (lvl == spdlog::level::off && name != "off")
    return false;
  log().set_level(lvl);
  return true;
}

} // namespace actorflow::core
