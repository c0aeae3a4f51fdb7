#pragma once

// A small network of real interfaces for multi-process tests run as root:
// `n` network namespaces, each with one end of a veth pair whose other end
// is a port of a bridge in this process's namespace, which has an address
// on the same /24. Traffic between the namespaces, and between them and
// this process, crosses the veth pairs and the bridge, not loopback.
// Everything is torn down when the object goes; a test that is killed
// leaves names with its process id behind (`ip netns list`).

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "common/command.hpp"

namespace actorflow::test {

class veth_lan {
public:
  /// Sets up `n` namespaces; `skip_reason()` says why not where it could
  /// not (not root, no `ip`, no namespaces in this kernel or container).
  explicit veth_lan(int n) {
    // Names and a /24 of their own per test process and per network in
    // it, so that neither parallel tests nor a network whose kernel
    // objects are still going away collide.
    static int made = 0;
    auto nth = made++ % 26;
    auto pid = std::to_string(::getpid()) + static_cast<char>('a' + nth);
    subnet_ = "10." + std::to_string(200 + nth) + "."
              + std::to_string(::getpid() % 250) + ".";
    bridge_ = "afbr" + pid;
    if (::geteuid() != 0) {
      skip_ = "needs root to create network namespaces";
      return;
    }
    if (!run_command("ip -V").ok()) {
      skip_ = "needs the ip command (iproute2)";
      return;
    }
    if (!ip("link add " + bridge_ + " type bridge")
        || !ip("addr add " + address_of(0) + "/24 dev " + bridge_)
        || !ip("link set " + bridge_ + " up"))
      return;
    for (int i = 1; i <= n; ++i) {
      auto ns = "actorflow-test-" + pid + "-" + std::to_string(i);
      auto outer = "afo" + pid + "x" + std::to_string(i);
      auto inner = "afi" + pid + "x" + std::to_string(i);
      if (!ip("netns add " + ns))
        return;
      namespaces_.push_back(ns);
      outers_.push_back(outer);
      if (!ip("link add " + outer + " type veth peer name " + inner)
          || !ip("link set " + inner + " netns " + ns)
          || !ip("link set " + outer + " master " + bridge_)
          || !ip("link set " + outer + " up")
          || !ip("-n " + ns + " addr add " + address_of(i) + "/24 dev " + inner)
          || !ip("-n " + ns + " link set " + inner + " up")
          || !ip("-n " + ns + " link set lo up"))
        return;
    }
  }

  ~veth_lan() {
    // Deleting a namespace deletes the veth end in it, and with it the
    // pair.
    for (const auto& ns : namespaces_)
      run_command("ip netns del " + ns);
    run_command("ip link del " + bridge_);
  }

  veth_lan(const veth_lan&) = delete;
  veth_lan& operator=(const veth_lan&) = delete;

  /// Why the network could not be set up; empty when it was.
  const std::string& skip_reason() const {
    return skip_;
  }

  /// The name of namespace `i` (1 .. n).
  const std::string& name(int i) const {
    return namespaces_.at(static_cast<size_t>(i - 1));
  }

  /// The address of namespace `i` (1 .. n), or this process's with 0.
  std::string address_of(int i) const {
    return subnet_ + std::to_string(i + 1);
  }

  /// Sets the link of namespace `i` (1 .. n) down or up: while it is
  /// down, nothing crosses between that namespace and the others.
  bool set_link(int i, bool up) {
    return ip("link set " + outers_.at(static_cast<size_t>(i - 1))
              + (up ? " up" : " down"));
  }

  /// The bytes namespace `i` (1 .. n) has sent into the bridge.
  uint64_t bytes_sent(int i) const {
    std::ifstream in{"/sys/class/net/" + outers_.at(static_cast<size_t>(i - 1))
                     + "/statistics/rx_bytes"};
    uint64_t bytes = 0;
    in >> bytes;
    return bytes;
  }

private:
  bool ip(const std::string& args) {
    auto r = run_command("ip " + args);
    if (!r.ok())
      skip_ = "'ip " + args + "' failed: " + r.output;
    return r.ok();
  }

  std::string subnet_;
  std::string bridge_;
  std::vector<std::string> namespaces_;
  std::vector<std::string> outers_;
  std::string skip_;
};

} // namespace actorflow::test
