#pragma once

// For tests that check the exit codes of `actorflow` processes they start:
// under LeakSanitizer, CAF 0.17 now and then leaves its BASP broker and the
// objects around it (a reference cycle inside CAF, every frame of the
// report CAF's) at the exit of a process that had remote connections, and
// LeakSanitizer's exit code would replace the program's. The children keep
// printing the report; their exit code stays their own. The leaks of our
// code are checked in process (tests/actors/lifecycle_test.cpp).

#include <cstdlib>
#include <string>

namespace actorflow::test {

/// Makes the processes this one starts from now on keep their own exit
/// code under LeakSanitizer (LeakSanitizer reads its options at start, so
/// this process is not affected).
inline void children_keep_exit_code_under_lsan() {
  const char* old = std::getenv("LSAN_OPTIONS");
  std::string options = old != nullptr ? old : "";
  if (options.find("exitcode=") == std::string::npos)
    options += (options.empty() ? "" : ":") + std::string{"exitcode=0"};
  ::setenv("LSAN_OPTIONS", options.c_str(), 1);
}

} // namespace actorflow::test
