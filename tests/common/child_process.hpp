#pragma once

// A child process whose stdout and stderr the test reads line by line,
// waiting for a line rather than for a clock. It gets SIGTERM (SIGKILL
// after a deadline) when the object goes, and SIGTERM should the test
// process die first.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace actorflow::test {

class child_process {
public:
  explicit child_process(std::vector<std::string> args) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      return;
    auto parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent)
        ::_exit(1);
      ::dup2(fds[1], STDOUT_FILENO);
      ::dup2(fds[1], STDERR_FILENO);
      std::vector<char*> argv;
      for (auto& a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    out_ = fds[0];
  }

  ~child_process() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGTERM);
      if (wait(std::chrono::seconds{15}) < -1)
        ::kill(pid_, SIGKILL);
      wait(std::chrono::seconds{15});
    }
    if (out_ >= 0)
      ::close(out_);
  }

  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  pid_t pid() const {
    return pid_;
  }

  /// Reads lines until one contains `text` or `limit` has passed; every
  /// line read is kept in `output()`. False at the deadline or the end.
  bool wait_for_line(const std::string& text, std::chrono::seconds limit,
                     std::string* line = nullptr) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    std::string current;
    while (read_line(deadline, &current)) {
      output_ += current + "\n";
      if (current.find(text) != std::string::npos) {
        if (line != nullptr)
          *line = current;
        return true;
      }
    }
    return false;
  }

  /// Reads to the end of the output, then reaps the process; its exit
  /// code, -1 if killed by a signal, -2 if it did not end within `limit`.
  int wait(std::chrono::seconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    std::string current;
    while (read_line(deadline, &current))
      output_ += current + "\n";
    if (!exited_) {
      // Becomes readable when the process has ended.
      int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
      if (fd >= 0) {
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, static_cast<int>(std::max<int64_t>(left, 0)));
        ::close(fd);
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) != pid_)
        return -2;
      exited_ = true;
      code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    return code_;
  }

  /// Everything read so far.
  const std::string& output() const {
    return output_;
  }

private:
  /// One line, or false at the end of the output or the deadline.
  bool read_line(std::chrono::steady_clock::time_point deadline,
                 std::string* line) {
    line->clear();
    for (;;) {
      auto nl = pending_.find('\n');
      if (nl != std::string::npos) {
        *line = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        return true;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
      if (out_ < 0 || left <= 0)
        return false;
      pollfd p{out_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0)
        continue;
      char buf[4096];
      auto n = ::read(out_, buf, sizeof buf);
      if (n <= 0) {
        ::close(out_);
        out_ = -1;
        if (pending_.empty())
          return false;
        pending_ += '\n';
        continue;
      }
      pending_.append(buf, static_cast<size_t>(n));
    }
  }

  pid_t pid_ = -1;
  int out_ = -1;
  std::string pending_;
  std::string output_;
  bool exited_ = false;
  int code_ = -1;
};

} // namespace actorflow::test
