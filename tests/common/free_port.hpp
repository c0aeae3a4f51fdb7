#pragma once

// A loopback port nothing listens on, for tests that name ports in a
// cluster file or want a refusal.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace actorflow::test {

/// `n` distinct loopback ports the OS said were free a moment ago (bound
/// together, then closed): nothing listens on them until someone binds
/// them. Fewer if the OS had fewer.
inline std::vector<uint16_t> free_ports(int n) {
  std::vector<int> fds;
  std::vector<uint16_t> ports;
  for (int i = 0; i < n; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      ports.push_back(ntohs(addr.sin_port));
    if (fd >= 0)
      fds.push_back(fd);
  }
  for (int fd : fds)
    ::close(fd);
  return ports;
}

/// One such port; 0 if the OS had none.
inline uint16_t free_port() {
  auto ports = free_ports(1);
  return ports.empty() ? 0 : ports[0];
}

} // namespace actorflow::test
