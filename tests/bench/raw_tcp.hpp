#pragma once

// The peer of the cluster benchmarks: plain TCP over loopback between two
// threads, or two processes, measured in the same run -- a ping-pong of
// small messages and a bulk transfer of the same bytes a tensor has.

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

namespace actorflow::bench {

/// A connected pair of loopback TCP sockets with TCP_NODELAY.
class tcp_pair {
public:
  tcp_pair() {
    int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (listener < 0
        || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), len) != 0
        || ::listen(listener, 1) != 0
        || ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len)
             != 0)
      fail("cannot listen on loopback");
    a_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (a_ < 0
        || ::connect(a_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
      fail("cannot connect on loopback");
    b_ = ::accept(listener, nullptr, nullptr);
    ::close(listener);
    if (b_ < 0)
      fail("cannot accept on loopback");
    int one = 1;
    ::setsockopt(a_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ::setsockopt(b_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }

  ~tcp_pair() {
    ::close(a_);
    ::close(b_);
  }

  tcp_pair(const tcp_pair&) = delete;
  tcp_pair& operator=(const tcp_pair&) = delete;

  int a() const {
    return a_;
  }

  int b() const {
    return b_;
  }

  static void write_all(int fd, const char* p, size_t n) {
    while (n > 0) {
      auto w = ::write(fd, p, n);
      if (w <= 0)
        fail("write failed");
      p += w;
      n -= static_cast<size_t>(w);
    }
  }

  static void read_all(int fd, char* p, size_t n) {
    while (n > 0) {
      auto r = ::read(fd, p, n);
      if (r <= 0)
        fail("read failed");
      p += r;
      n -= static_cast<size_t>(r);
    }
  }

private:
  [[noreturn]] static void fail(const char* what) {
    std::fprintf(stderr, "raw tcp: %s\n", what);
    std::exit(1);
  }

  int a_ = -1;
  int b_ = -1;
};

/// Where the other end of a raw TCP measurement runs.
enum class peer_in { thread, process };

/// Runs `body` in another thread or a forked process until `join`: the
/// process only reads and writes its socket, then leaves with `_exit`.
class raw_peer {
public:
  raw_peer(peer_in where, std::function<void()> body) {
    if (where == peer_in::thread) {
      thread_ = std::thread{std::move(body)};
      return;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
      body();
      ::_exit(0);
    }
    if (pid_ < 0) {
      std::fprintf(stderr, "raw tcp: cannot fork\n");
      std::exit(1);
    }
  }

  void join() {
    if (thread_.joinable())
      thread_.join();
    if (pid_ > 0)
      ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

private:
  std::thread thread_;
  pid_t pid_ = -1;
};

/// Microseconds per round trip of a `bytes`-byte message echoed by another
/// thread or process; the median of `rounds` rounds of `n` round trips.
inline double raw_tcp_rtt_us(size_t bytes, int n, int rounds = 5,
                             peer_in where = peer_in::thread) {
  tcp_pair p;
  raw_peer echo{where, [&] {
                  std::vector<char> buf(bytes);
                  for (int i = 0; i < n * rounds + 10; ++i) {
                    tcp_pair::read_all(p.b(), buf.data(), bytes);
                    tcp_pair::write_all(p.b(), buf.data(), bytes);
                  }
                }};
  std::vector<char> buf(bytes, 'x');
  auto once = [&] {
    tcp_pair::write_all(p.a(), buf.data(), bytes);
    tcp_pair::read_all(p.a(), buf.data(), bytes);
  };
  for (int i = 0; i < 10; ++i)
    once();
  std::vector<double> us;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
      once();
    us.push_back(std::chrono::duration<double, std::micro>(
                   std::chrono::steady_clock::now() - t0)
                   .count()
                 / n);
  }
  echo.join();
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

/// GB/s (1e9 bytes per second) of `bytes` written by one thread and read
/// by another thread or process, acknowledged by one byte; the best of
/// `rounds`.
inline double raw_tcp_gbps(size_t bytes, int rounds,
                           peer_in where = peer_in::thread) {
  tcp_pair p;
  std::vector<char> out(bytes, 'x');
  std::vector<char> in(bytes);
  raw_peer reader{where, [&] {
                    for (int r = 0; r < rounds + 1; ++r) {
                      tcp_pair::read_all(p.b(), in.data(), bytes);
                      tcp_pair::write_all(p.b(), in.data(), 1);
                    }
                  }};
  double best = 0;
  for (int r = 0; r < rounds + 1; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    tcp_pair::write_all(p.a(), out.data(), bytes);
    char ack;
    tcp_pair::read_all(p.a(), &ack, 1);
    double s
      = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
    if (r > 0) // the first round warms the buffers
      best = std::max(best, static_cast<double>(bytes) / s / 1e9);
  }
  reader.join();
  return best;
}

/// GB/s of the traffic a ring all-reduce of `bytes` between two processes
/// has, over raw TCP with no arithmetic: each process sends `bytes` to the
/// other while it receives as many (a writer thread beside a reader),
/// then acknowledges; `bytes` over the time, as a bus bandwidth; the best
/// of `rounds`.
inline double raw_tcp_exchange_gbps(size_t bytes, int rounds) {
  tcp_pair p;
  std::vector<char> out(bytes, 'x');
  std::vector<char> in(bytes);
  auto exchange = [&](int fd) {
    std::thread writer{[&] { tcp_pair::write_all(fd, out.data(), bytes); }};
    tcp_pair::read_all(fd, in.data(), bytes);
    writer.join();
  };
  raw_peer peer{peer_in::process, [&] {
                  for (int r = 0; r < rounds + 1; ++r) {
                    exchange(p.b());
                    tcp_pair::write_all(p.b(), in.data(), 1);
                  }
                }};
  double best = 0;
  for (int r = 0; r < rounds + 1; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    exchange(p.a());
    char ack;
    tcp_pair::read_all(p.a(), &ack, 1);
    double s
      = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
    if (r > 0)
      best = std::max(best, static_cast<double>(bytes) / s / 1e9);
  }
  peer.join();
  return best;
}

} // namespace actorflow::bench
