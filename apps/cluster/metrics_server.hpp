#pragma once

// Prometheus' scrape endpoint of a worker process.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "actorflow/core/status.hpp"

struct MHD_Daemon;

namespace actorflow::apps {

/// Serves a process's metrics at `http://HOST:PORT/metrics` in
/// Prometheus' text format (libmicrohttpd, one thread of its own); any
/// other path is 404 and any method but GET and HEAD 405.
class metrics_server {
public:
  /// Starts serving what `text` returns at each scrape, on `host` at
  /// `port` (0: a port the OS picks).
  static core::status start(const std::string& host, uint16_t port,
                            std::function<std::string()> text,
                            std::unique_ptr<metrics_server>* out);

  /// Stops serving (a scrape in progress ends first).
  ~metrics_server();

  metrics_server(const metrics_server&) = delete;
  metrics_server& operator=(const metrics_server&) = delete;

  /// The port it listens on.
  uint16_t port() const noexcept {
    return port_;
  }

private:
  metrics_server() = default;

  MHD_Daemon* daemon_ = nullptr;
  std::function<std::string()> text_;
  uint16_t port_ = 0;
};

} // namespace actorflow::apps
