#include "transport/bulk_transport.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>

#include <caf/send.hpp>

#include "actorflow/core/logging.hpp"
#include "transport/wire_codec.hpp"

namespace actorflow::actors {

namespace {

/// "AFBK": every frame starts with it.
constexpr uint32_t frame_magic = 0x4b424641;

/// The largest header accepted (a value message's fields and a shape).
constexpr uint32_t max_header_words = 8192;

/// The largest tensor accepted, as on the CAF path.
constexpr uint64_t max_payload_bytes = uint64_t{1} << 30;

struct frame_prefix {
  uint32_t magic;
  uint32_t header_words;
  uint64_t payload_bytes;
};
static_assert(sizeof(frame_prefix) == 16);

void set_nodelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/// Blocks SIGPIPE in the calling thread: a write to a connection the
/// peer closed fails with EPIPE instead of ending the process (OpenSSL
/// writes with write(), which has no MSG_NOSIGNAL).
void block_sigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

/// The peer of `fd` as `host:port`, for a log line.
std::string peer_of(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  char host[NI_MAXHOST] = "?";
  char port[NI_MAXSERV] = "?";
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    ::getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof(host),
                  port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
  return std::string{host} + ":" + port;
}

/// Connects to `host:port`; -1 on failure, with `why`.
int connect_to(const std::string& address, std::string* why) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos) {
    *why = "no port in '" + address + "'";
    return -1;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  auto host = address.substr(0, colon);
  auto port = address.substr(colon + 1);
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
      rc != 0) {
    *why = ::gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  *why = "no address for '" + host + "'";
  for (auto* ai = res; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
                  ai->ai_protocol);
    if (fd >= 0 && ::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      *why = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(res);
  if (fd >= 0)
    set_nodelay(fd);
  return fd;
}

} // namespace

/// One outgoing connection and the thread that writes it.
struct bulk_transport::link {
  struct item {
    uint64_t key;
    value_msg msg;
    value_sink fallback;
  };

  std::string address;
  const bulk_tls* tls = nullptr;
  metrics* counters = nullptr;
  std::mutex mtx;
  std::condition_variable cv;
  std::deque<item> queue;
  bool stop = false;
  /// The socket's descriptor while connected, to shut it down from the
  /// transport's destructor (guarded by `mtx`).
  int fd = -1;
  bulk_socket sock;
  std::thread thread;

  void run() {
    block_sigpipe();
    bool broken = false;
    for (;;) {
      item it;
      {
        std::unique_lock<std::mutex> guard{mtx};
        cv.wait(guard, [&] { return stop || !queue.empty(); });
        if (stop)
          return;
        it = std::move(queue.front());
        queue.pop_front();
      }
      if (!broken && !sock.valid()) {
        std::string why;
        broken = !connect(&why);
        if (broken && why.empty())
          return; // stopping
        counters->set_bulk_link(address, !broken);
        if (broken)
          core::log().warn("bulk path to {} unavailable ({}): large tensors "
                           "to it go through CAF",
                           address, why);
      }
      if (!broken && !write_frame(it)) {
        counters->set_bulk_link(address, false);
        core::log().warn("bulk path to {} failed ({}): large tensors to it "
                         "go through CAF",
                         address, std::strerror(errno));
        broken = true;
      }
      if (broken) {
        std::lock_guard<std::mutex> guard{mtx};
        if (stop)
          return;
        caf::anon_send(it.fallback, std::move(it.msg));
      }
    }
  }

  /// Connects the socket (and runs the TLS handshake); false with `why`,
  /// or with nothing if the transport is stopping.
  bool connect(std::string* why) {
    int c = connect_to(address, why);
    {
      std::lock_guard<std::mutex> guard{mtx};
      if (stop) {
        if (c >= 0)
          ::close(c);
        why->clear();
        return false;
      }
      if (c < 0)
        return false;
      fd = c;
    }
    bulk_socket s;
    auto st = tls != nullptr ? tls->connect(c, &s) : core::status::ok();
    std::lock_guard<std::mutex> guard{mtx};
    if (!st.is_ok()) {
      // Closed under the lock: the destructor shuts down `fd` under it.
      ::close(c);
      fd = -1;
      *why = st.to_string();
      return false;
    }
    sock = tls != nullptr ? std::move(s) : bulk_socket{c};
    return true;
  }

  bool write_frame(item& it) {
    auto header = detail::encode_bulk_header(it.key, it.msg);
    const auto& t = it.msg.value.value;
    frame_prefix prefix{frame_magic, static_cast<uint32_t>(header.size()),
                        t.bytes()};
    iovec iov[3] = {
      {&prefix, sizeof(prefix)},
      {header.begin(), header.size() * sizeof(capnp::word)},
      {const_cast<void*>(t.raw_data()), t.bytes()},
    };
    return sock.write_all(iov, 3);
  }
};

core::status bulk_transport::start(const std::string& host, size_t min_bytes,
                                   const tls_files& tls,
                                   std::shared_ptr<metrics> counters,
                                   std::shared_ptr<bulk_transport>* out) {
  std::shared_ptr<bulk_transport> self{new bulk_transport};
  self->min_bytes_ = min_bytes;
  self->counters_ = std::move(counters);
  if (tls.enabled())
    ACTORFLOW_RETURN_IF_ERROR(bulk_tls::make(tls, &self->tls_));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), "0", &hints, &res); rc != 0)
    return core::unavailable_error("bulk path: cannot resolve '", host,
                                   "': ", ::gai_strerror(rc));
  int fd = ::socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC,
                    res->ai_protocol);
  bool ok = fd >= 0 && ::bind(fd, res->ai_addr, res->ai_addrlen) == 0
            && ::listen(fd, 64) == 0;
  ::freeaddrinfo(res);
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  ok = ok && ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  if (!ok) {
    auto err = core::unavailable_error("bulk path: cannot listen on ", host,
                                       ": ", std::strerror(errno));
    if (fd >= 0)
      ::close(fd);
    return err;
  }
  auto port = addr.ss_family == AF_INET6
                ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  self->listener_ = fd;
  self->address_ = host + ":" + std::to_string(port);
  self->acceptor_ = std::thread{[p = self.get()] { p->accept_loop(); }};
  *out = std::move(self);
  return core::status::ok();
}

bulk_transport::~bulk_transport() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
    for (int fd : reader_fds_)
      ::shutdown(fd, SHUT_RDWR);
    for (auto& [address, l] : links_) {
      std::lock_guard<std::mutex> link_guard{l->mtx};
      l->stop = true;
      if (l->fd >= 0)
        ::shutdown(l->fd, SHUT_RDWR);
      l->cv.notify_one();
    }
  }
  // Wakes the acceptor: accept fails on a listener that is shut down.
  // (Neither exists if `start` failed.)
  if (listener_ >= 0)
    ::shutdown(listener_, SHUT_RDWR);
  if (acceptor_.joinable())
    acceptor_.join();
  if (listener_ >= 0)
    ::close(listener_);
  for (auto& t : readers_)
    t.join();
  // Each link's socket closes with the link.
  for (auto& [address, l] : links_)
    l->thread.join();
}

uint64_t bulk_transport::add_route(value_sink recv) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto key = next_key_++;
  routes_.emplace(key, std::move(recv));
  return key;
}

void bulk_transport::remove_route(uint64_t key) {
  std::lock_guard<std::mutex> guard{mtx_};
  routes_.erase(key);
}

value_sink bulk_transport::route(uint64_t key) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = routes_.find(key);
  return i == routes_.end() ? value_sink{} : i->second;
}

bool bulk_transport::wants(const value_msg& m) const {
  const auto& t = m.value.value;
  return m.state == value_state::live && t.valid() && !m.value.ref
         && t.bytes() >= min_bytes_ && t.dtype() != core::dtype::string
         && t.dtype() != core::dtype::bool_;
}

void bulk_transport::send(const std::string& address, uint64_t key,
                          value_msg&& m, const value_sink& fallback) {
  link* l;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    auto& slot = links_[address];
    if (!slot) {
      slot = std::make_unique<link>();
      slot->address = address;
      slot->tls = tls_.get();
      slot->counters = counters_.get();
      slot->thread = std::thread{[p = slot.get()] { p->run(); }};
    }
    l = slot.get();
  }
  std::lock_guard<std::mutex> guard{l->mtx};
  l->queue.push_back(link::item{key, std::move(m), fallback});
  l->cv.notify_one();
}

void bulk_transport::accept_loop() {
  for (;;) {
    int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0 && errno == EINTR)
      continue;
    std::lock_guard<std::mutex> guard{mtx_};
    if (fd < 0 || stopping_) {
      if (fd >= 0)
        ::close(fd);
      return;
    }
    set_nodelay(fd);
    reader_fds_.push_back(fd);
    readers_.emplace_back([this, fd] { read_loop(fd); });
  }
}

void bulk_transport::read_loop(int fd) {
  block_sigpipe();
  bulk_socket sock;
  if (tls_ == nullptr) {
    sock = bulk_socket{fd};
  } else if (auto st = tls_->accept(fd, &sock); !st.is_ok()) {
    core::log().warn("{}; refused the connection from {}", st.to_string(),
                     peer_of(fd));
  }
  if (sock.valid())
    read_frames(sock);
  // Closed under the lock: the destructor shuts down `fd` under it.
  std::lock_guard<std::mutex> guard{mtx_};
  reader_fds_.erase(std::find(reader_fds_.begin(), reader_fds_.end(), fd));
  if (sock.valid())
    sock = bulk_socket{};
  else
    ::close(fd);
}

void bulk_transport::read_frames(bulk_socket& sock) {
  for (;;) {
    frame_prefix prefix;
    if (!sock.read_all(&prefix, sizeof(prefix)))
      return;
    if (prefix.magic != frame_magic || prefix.header_words == 0
        || prefix.header_words > max_header_words
        || prefix.payload_bytes > max_payload_bytes) {
      core::log().warn("bulk path: a malformed frame prefix; closing that "
                       "connection");
      return;
    }
    auto words = kj::heapArray<capnp::word>(prefix.header_words);
    if (!sock.read_all(words.begin(), words.size() * sizeof(capnp::word)))
      return;
    uint64_t key = 0;
    value_msg m;
    auto st = detail::decode_bulk_header(words, prefix.payload_bytes, &key, &m);
    if (!st.is_ok()) {
      core::log().warn("bulk path: {}; closing that connection",
                       st.to_string());
      return;
    }
    if (!sock.read_all(m.value.value.raw_mutable_data(), prefix.payload_bytes))
      return;
    counters_->bulk_received(prefix.payload_bytes);
    if (auto dest = route(key))
      caf::anon_send(dest, std::move(m));
    else
      core::log().debug("bulk path: no Recv has key {} (its session ended)",
                        key);
  }
}

} // namespace actorflow::actors
