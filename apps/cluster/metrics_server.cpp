// Prometheus' scrape endpoint of a task, served by libmicrohttpd.

#include "cluster/metrics_server.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <cstring>

#include <microhttpd.h>

namespace actorflow::apps {

namespace {

/// Answers one request with `body` and `status`.
MHD_Result reply(MHD_Connection* c, unsigned status, const std::string& body,
                 const char* content_type) {
  auto* r = MHD_create_response_from_buffer(
    body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
  if (r == nullptr)
    return MHD_NO;
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
  auto ok = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ok;
}

MHD_Result handle(void* cls, MHD_Connection* c, const char* url,
                  const char* method, const char*, const char*, size_t*,
                  void**) {
  const auto& text = *static_cast<std::function<std::string()>*>(cls);
  if (std::strcmp(method, MHD_HTTP_METHOD_GET) != 0
      && std::strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
    return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET\n", "text/plain");
  if (std::strcmp(url, "/metrics") != 0)
    return reply(c, MHD_HTTP_NOT_FOUND, "metrics are at /metrics\n",
                 "text/plain");
  return reply(c, MHD_HTTP_OK, text(), "text/plain; version=0.0.4");
}

} // namespace

core::status metrics_server::start(const std::string& host, uint16_t port,
                                   std::function<std::string()> text,
                                   std::unique_ptr<metrics_server>* out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  auto service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(),
                             service.c_str(), &hints, &res);
      rc != 0)
    return core::unavailable_error("metrics: cannot resolve '", host,
                                   "': ", ::gai_strerror(rc));
  std::unique_ptr<metrics_server> self{new metrics_server};
  self->text_ = std::move(text);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD;
  if (res->ai_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  self->daemon_ = MHD_start_daemon(
    flags, port, nullptr, nullptr, &handle, &self->text_, MHD_OPTION_SOCK_ADDR,
    res->ai_addr, MHD_OPTION_CONNECTION_TIMEOUT, unsigned{10}, MHD_OPTION_END);
  ::freeaddrinfo(res);
  if (self->daemon_ == nullptr)
    return core::unavailable_error("metrics: cannot listen on ", host, ":",
                                   port, " (in use, or not this host's)");
  const auto* info
    = MHD_get_daemon_info(self->daemon_, MHD_DAEMON_INFO_BIND_PORT);
  self->port_ = info != nullptr ? info->port : port;
  *out = std::move(self);
  return core::status::ok();
}

metrics_server::~metrics_server() {
  if (daemon_ != nullptr)
    MHD_stop_daemon(daemon_);
}

} // namespace actorflow::apps
