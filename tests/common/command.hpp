#pragma once

// Runs a shell command and keeps what it printed, for tests of command-line
// tools and of the system set-up some tests need.

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace actorflow::test {

/// What a command printed (stdout and stderr) and its exit code (-1 if it
/// did not exit normally).
struct command_result {
  std::string output;
  int exit_code = -1;

  bool ok() const {
    return exit_code == 0;
  }
};

inline command_result run_command(const std::string& command) {
  command_result r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr)
    return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
    r.output.append(buf, n);
  int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

} // namespace actorflow::test
