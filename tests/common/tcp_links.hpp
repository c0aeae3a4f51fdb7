#pragma once

// Which TCP connections a process holds, from /proc: for tests that check
// who talks to whom directly.

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace actorflow::test {

/// Whether process `pid` holds an established TCP connection to port
/// `port` (of any host): one it opened, not one accepted on that port.
inline bool connected_to_port(pid_t pid, uint16_t port) {
  namespace fs = std::filesystem;
  auto proc = "/proc/" + std::to_string(pid);
  std::set<std::string> inodes; // the process's sockets
  std::error_code ec;
  for (const auto& fd : fs::directory_iterator{proc + "/fd", ec}) {
    auto target = fs::read_symlink(fd.path(), ec).string();
    if (!ec && target.rfind("socket:[", 0) == 0)
      inodes.insert(target.substr(8, target.size() - 9));
  }
  for (auto table : {"/net/tcp", "/net/tcp6"}) {
    std::ifstream in{proc + table};
    std::string line;
    std::getline(in, line); // the header
    while (std::getline(in, line)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout
      // inode ...
      std::istringstream row{line};
      std::string sl, local, remote, state, skip, inode;
      row >> sl >> local >> remote >> state >> skip >> skip >> skip >> skip
        >> skip >> inode;
      auto colon = remote.rfind(':');
      if (state != "01" || colon == std::string::npos
          || inodes.count(inode) == 0)
        continue;
      if (std::stoul(remote.substr(colon + 1), nullptr, 16) == port)
        return true;
    }
  }
  return false;
}

} // namespace actorflow::test
