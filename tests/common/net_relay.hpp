#pragma once

// Starting tests/tools/net_relay (a TCP relay that delays, throttles,
// stalls and drops connections) in front of a task.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/child_process.hpp"

namespace actorflow::test {

/// A net_relay (the binary NET_RELAY names) in front of `to`
/// (`host:port`) with `args`; its port, or 0 (the test then fails) if it
/// did not start.
inline uint16_t start_relay(std::unique_ptr<child_process>* relay,
                            const std::string& to,
                            std::vector<std::string> args = {}) {
  args.insert(args.begin(), {NET_RELAY, "--to", to});
  *relay = std::make_unique<child_process>(std::move(args));
  std::string line;
  if (!(*relay)->wait_for_line("net_relay listening on",
                               std::chrono::seconds{10}, &line))
    return 0;
  return static_cast<uint16_t>(std::stoi(line.substr(line.rfind(':') + 1)));
}

} // namespace actorflow::test
