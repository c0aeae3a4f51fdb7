// The resources `actorflow cluster up` checks before starting any task.

#include "cluster/local_capacity.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace actorflow::apps {

namespace {

/// The number in `/proc/sys/kernel/NAME`; -1 if unreadable.
long kernel_limit(const char* name) {
  std::ifstream in{std::string{"/proc/sys/kernel/"} + name};
  long x = -1;
  in >> x;
  return in ? x : -1;
}

/// This machine's available memory in MiB (`MemAvailable`); -1 if unknown.
double available_mib() {
  std::ifstream in{"/proc/meminfo"};
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:")
      return kib / 1024;
  return -1;
}

/// Whether `task` can bind its address; an error naming it otherwise.
core::status check_port(const actors::cluster_task& task) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(task.bind_port());
  if (::inet_pton(AF_INET, task.bind_host().c_str(), &addr.sin_addr) != 1)
    return core::status::ok(); // a name or IPv6: the task resolves it
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return core::resource_exhausted_error("cannot open a socket to check ",
                                          task.name(),
                                          "'s port: ", std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  auto rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  auto err = errno;
  ::close(fd);
  if (rc == 0)
    return core::status::ok();
  if (err == EADDRINUSE)
    return core::unavailable_error(
      task.name(), "'s port ", task.bind_port(), " on ", task.bind_host(),
      " is taken by another process: stop it or give the task another port");
  if (err == EADDRNOTAVAIL)
    return core::invalid_argument_error(
      task.name(), " listens at ", task.bind_host(),
      ", which is not an address of this machine");
  return core::unavailable_error(task.name(), " cannot listen at ",
                                 task.bind_host(), ":", task.bind_port(), ": ",
                                 std::strerror(err));
}

} // namespace

core::status check_local_capacity(const actors::cluster_spec& spec) {
  auto n = spec.tasks.size();
  // The supervisor reads every task's output through a pipe.
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
      && n + 64 > files.rlim_cur)
    return core::resource_exhausted_error(
      n, " tasks need about ", n + 64,
      " open files here, and this process may hold at most ", files.rlim_cur,
      " (ulimit -n): raise the limit, or run fewer tasks on this machine");
  auto threads = static_cast<long>(n) * task_threads;
  for (const char* name : {"threads-max", "pid_max"}) {
    auto limit = kernel_limit(name);
    if (limit > 0 && threads > limit)
      return core::resource_exhausted_error(
        n, " tasks need about ", threads, " threads here, more than kernel.",
        name, " (", limit, "): run fewer tasks on this machine");
  }
  auto need = static_cast<double>(n) * task_memory_mib;
  auto have = available_mib();
  if (have > 0 && need > have)
    return core::resource_exhausted_error(
      n, " tasks need about ", static_cast<long>(need), " MiB of memory here (",
      task_memory_mib, " MiB an idle task), and ", static_cast<long>(have),
      " MiB are available: run fewer tasks on this machine");
  for (const auto& t : spec.tasks)
    ACTORFLOW_RETURN_IF_ERROR(check_port(t));
  return core::status::ok();
}

} // namespace actorflow::apps
