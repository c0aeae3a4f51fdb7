// A TCP relay that makes a loopback link behave like a slow, stalling
// network, for the tests of a cluster over a bad network (this kernel
// has no netem). It forwards every connection it accepts to one address,
// each direction after a delay and at a bounded rate; SIGUSR1 stalls
// every connection (bytes are held, nothing is closed: no FIN, no RST),
// SIGUSR2 lets them flow again, and SIGHUP drops the connections open
// now (both ends see them close; new ones are relayed as before).
//
//   net_relay --to HOST:PORT [--delay-ms D] [--rate-kbps R]
//
// Prints "net_relay listening on 127.0.0.1:PORT" once it accepts, and
// runs until SIGTERM or SIGINT.

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

namespace {

using clock_type = std::chrono::steady_clock;

/// Whether the relay holds every byte (SIGUSR1) or forwards (SIGUSR2).
struct stall_switch {
  std::mutex mtx;
  std::condition_variable cv;
  bool stalled = false;

  void set(bool on) {
    std::lock_guard<std::mutex> guard{mtx};
    stalled = on;
    cv.notify_all();
  }

  void wait_until_flowing() {
    std::unique_lock<std::mutex> guard{mtx};
    cv.wait(guard, [this] { return !stalled; });
  }
};

/// The sockets of the connections being relayed, to drop them (SIGHUP).
struct open_sockets {
  std::mutex mtx;
  std::set<int> fds;

  void add(int fd) {
    std::lock_guard<std::mutex> guard{mtx};
    fds.insert(fd);
  }

  /// Forgets `fd` and closes it.
  void close(int fd) {
    std::lock_guard<std::mutex> guard{mtx};
    fds.erase(fd);
    ::close(fd);
  }

  void shut_all() {
    std::lock_guard<std::mutex> guard{mtx};
    for (int fd : fds)
      ::shutdown(fd, SHUT_RDWR);
  }
};

struct options {
  std::string to;
  int delay_ms = 0;
  int rate_kbps = 0;
};

/// One direction of a connection: bytes read from `from` are written to
/// `to` once `delay` has passed since they arrived, at most `rate_kbps`.
class pump {
public:
  pump(int from, int to, const options& o, stall_switch& stall)
    : from_(from), to_(to), opts_(o), stall_(stall) {
    reader_ = std::thread{[this] { read(); }};
    writer_ = std::thread{[this] { write(); }};
  }

  ~pump() {
    reader_.join();
    writer_.join();
  }

private:
  struct chunk {
    clock_type::time_point due;
    std::string bytes; ///< Empty: the end of the stream.
  };

  void read() {
    char buf[65536];
    for (;;) {
      auto n = ::recv(from_, buf, sizeof(buf), 0);
      chunk c{clock_type::now() + std::chrono::milliseconds{opts_.delay_ms},
              n > 0 ? std::string(buf, static_cast<size_t>(n)) : ""};
      {
        std::lock_guard<std::mutex> guard{mtx_};
        queue_.push_back(std::move(c));
      }
      cv_.notify_one();
      if (n <= 0)
        return;
    }
  }

  void write() {
    for (;;) {
      chunk c;
      {
        std::unique_lock<std::mutex> guard{mtx_};
        cv_.wait(guard, [this] { return !queue_.empty(); });
        c = std::move(queue_.front());
        queue_.pop_front();
      }
      // The network's latency and a stall are what this tool is for.
      std::this_thread::sleep_until(c.due);
      stall_.wait_until_flowing();
      if (c.bytes.empty()) {
        ::shutdown(to_, SHUT_WR);
        return;
      }
      size_t done = 0;
      while (done < c.bytes.size()) {
        auto w = ::send(to_, c.bytes.data() + done, c.bytes.size() - done,
                        MSG_NOSIGNAL);
        if (w <= 0) {
          ::shutdown(from_, SHUT_RD);
          drain();
          return;
        }
        done += static_cast<size_t>(w);
      }
      if (opts_.rate_kbps > 0)
        std::this_thread::sleep_for(std::chrono::microseconds{
          static_cast<int64_t>(c.bytes.size()) * 8000 / opts_.rate_kbps});
    }
  }

  /// Takes what the reader still queues until its end marker.
  void drain() {
    for (;;) {
      std::unique_lock<std::mutex> guard{mtx_};
      cv_.wait(guard, [this] { return !queue_.empty(); });
      bool end = queue_.front().bytes.empty();
      queue_.pop_front();
      if (end)
        return;
    }
  }

  int from_;
  int to_;
  const options& opts_;
  stall_switch& stall_;
  std::mutex mtx_;
  std::condition_variable cv_;
  std::deque<chunk> queue_;
  std::thread reader_;
  std::thread writer_;
};

int connect_to(const std::string& address) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos)
    return -1;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(address.substr(0, colon).c_str(),
                    address.substr(colon + 1).c_str(), &hints, &res)
      != 0)
    return -1;
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(res);
  return fd;
}

/// Both directions of one accepted connection; closes both sockets.
void relay(int client, const options& o, stall_switch& stall,
           open_sockets& open) {
  int server = connect_to(o.to);
  if (server < 0) {
    open.close(client);
    return;
  }
  open.add(server);
  int one = 1;
  ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  ::setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  {
    pump up{client, server, o, stall};
    pump down{server, client, o, stall};
  }
  open.close(client);
  open.close(server);
}

} // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app{"Forwards TCP connections to one address after a delay and "
               "at a bounded rate; SIGUSR1 stalls them, SIGUSR2 resumes, "
               "SIGHUP drops those open"};
  app.set_version_flag("--version", "net_relay (actorflow tests)");
  app.add_option("--to", o.to, "Where to forward: HOST:PORT")->required();
  app.add_option("--delay-ms", o.delay_ms, "Added to each direction")
    ->check(CLI::NonNegativeNumber);
  app
    .add_option("--rate-kbps", o.rate_kbps,
                "Each direction's rate, kbit/s (0: unbounded)")
    ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);

  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGUSR1, SIGUSR2, SIGHUP, SIGTERM, SIGINT})
    sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0
      || ::listen(listener, 64) != 0
      || ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len)
           != 0) {
    std::perror("net_relay: cannot listen");
    return 1;
  }
  std::printf("net_relay listening on 127.0.0.1:%u\n",
              static_cast<unsigned>(ntohs(addr.sin_port)));
  std::fflush(stdout);

  stall_switch stall;
  open_sockets open;
  std::thread acceptor{[&] {
    for (;;) {
      int c = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0)
        return;
      open.add(c);
      std::thread{[c, &o, &stall, &open] {
        relay(c, o, stall, open);
      }}.detach();
    }
  }};
  for (;;) {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig == SIGUSR1 || sig == SIGUSR2) {
      stall.set(sig == SIGUSR1);
      continue;
    }
    if (sig == SIGHUP) {
      open.shut_all();
      continue;
    }
    // Connections still open end with the process.
    ::shutdown(listener, SHUT_RDWR);
    acceptor.join();
    std::_Exit(0);
  }
}
