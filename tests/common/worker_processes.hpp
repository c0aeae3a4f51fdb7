#pragma once

// Real `actorflow worker` processes for multi-process tests: started on
// ports the OS picks, waited for by the line each prints once its port is
// bound (no sleeps), and stopped with SIGTERM -- SIGKILL if one does not
// exit within its deadline -- when the object goes, a failed test included.

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "actorflow/actors/cluster.hpp"

namespace actorflow::test {

/// The tasks of one job to start.
struct job_tasks {
  std::string job;
  int tasks = 1;
  int cpus = 2;                  ///< CPU devices per task.
  int threads = 1;               ///< Intra-op threads per device.
  std::vector<std::string> args; ///< More flags for `actorflow worker`.
  /// Per task: the address it listens on (default 127.0.0.1) and the
  /// network namespace it runs in (`ip netns` name; default this one's).
  std::vector<std::string> hosts;
  std::vector<std::string> namespaces;

  std::string host(int i) const {
    return static_cast<size_t>(i) < hosts.size() ? hosts[i] : "127.0.0.1";
  }
};

class worker_processes {
public:
  /// Starts one worker per task of each job, on its host (127.0.0.1 unless
  /// given) and a port the OS picks, in the order given; `more_yaml` goes
  /// at the end of their cluster file (e.g. a `timeouts:` section). Check
  /// `ok()` and `error()`.
  worker_processes(const std::string& cli, std::vector<job_tasks> jobs,
                   const std::string& more_yaml = {}) {
    config_ = (std::filesystem::temp_directory_path()
               / ("actorflow-cluster-" + std::to_string(::getpid()) + "-"
                  + std::to_string(counter()++) + ".yaml"))
                .string();
    std::ofstream out{config_};
    out << "jobs:\n";
    for (const auto& j : jobs) {
      out << "  " << j.job << ":\n    cpus: " << j.cpus << "\n    tasks: [";
      for (int i = 0; i < j.tasks; ++i)
        out << (i ? ", " : "") << j.host(i) << ":0";
      out << "]\n";
    }
    out << more_yaml;
    out.close();
    spec_.connect_timeout = std::chrono::milliseconds{10000};
    // All started first, then each waited for: they start side by side.
    std::vector<std::pair<const job_tasks*, int>> order;
    for (const auto& j : jobs)
      for (int i = 0; i < j.tasks && error_.empty(); ++i) {
        spawn(cli, j, i, config_, workers_.size());
        order.emplace_back(&j, i);
      }
    for (size_t slot = 0; slot < order.size() && error_.empty(); ++slot)
      await_port(*order[slot].first, order[slot].second, slot);
    cli_ = cli;
    jobs_ = std::move(jobs);
    more_yaml_ = more_yaml;
  }

  /// `n` tasks of a job `worker` with `cpus` CPU devices each.
  worker_processes(const std::string& cli, int n, int cpus = 2)
    : worker_processes(cli, {job_tasks{"worker", n, cpus, 1, {}, {}, {}}}) {
    // nop
  }

  ~worker_processes() {
    for (auto& w : workers_)
      ::kill(w.pid, SIGTERM);
    for (auto& w : workers_) {
      if (!reap(w.pid, std::chrono::seconds{10})) {
        ::kill(w.pid, SIGKILL);
        reap(w.pid, std::chrono::seconds{10});
      }
      ::close(w.out);
    }
    std::remove(config_.c_str());
  }

  worker_processes(const worker_processes&) = delete;
  worker_processes& operator=(const worker_processes&) = delete;

  bool ok() const {
    return error_.empty();
  }

  const std::string& error() const {
    return error_;
  }

  /// The cluster as a client sees it: the ports the workers bound.
  const actors::cluster_spec& spec() const {
    return spec_;
  }

  /// Writes the cluster as a client sees it, with the ports the workers
  /// bound, as a cluster file at `path`.
  bool write_config(const std::string& path) const {
    std::ofstream out{path};
    out << "jobs:\n";
    for (size_t i = 0; i < spec_.tasks.size(); ++i) {
      const auto& t = spec_.tasks[i];
      if (i == 0 || spec_.tasks[i - 1].job != t.job)
        out << "  " << t.job << ":\n    cpus: " << t.cpus << "\n    tasks: [";
      out << t.host << ":" << t.port;
      bool last
        = i + 1 == spec_.tasks.size() || spec_.tasks[i + 1].job != t.job;
      out << (last ? "]\n" : ", ");
    }
    out << more_yaml_;
    return static_cast<bool>(out.flush());
  }

  /// The cluster as a client loads it from a file: the ports the workers
  /// bound, and the timeouts and TLS of the extra YAML they were given.
  core::status client_spec(actors::cluster_spec* out) const {
    auto path = config_ + ".client";
    if (!write_config(path))
      return core::internal_error("cannot write ", path);
    auto st = actors::cluster_spec::load(path, out);
    std::remove(path.c_str());
    return st;
  }

  /// The next line task `i` printed after its port line, waiting at most
  /// `limit` (" (timed out)" or " (closed)" at its end if none came).
  std::string next_line(size_t i,
                        std::chrono::seconds limit = std::chrono::seconds{10}) {
    return read_line(workers_.at(i).out, limit);
  }

  /// Where task `i` takes large tensors (`host:port`; empty: no bulk
  /// path).
  const std::string& bulk_address(size_t i) const {
    return bulk_.at(i);
  }

  /// The process id of task `i`.
  pid_t pid(size_t i) const {
    return workers_.at(i).pid;
  }

  /// Starts task `i` again on the port it had, once its process is gone
  /// (kill it first); false with `error()` if it cannot.
  bool restart(size_t i) {
    auto& old = workers_.at(i);
    if (!reap(old.pid, std::chrono::seconds{10})) {
      error_ = "task " + std::to_string(i) + " did not exit";
      return false;
    }
    ::close(old.out);
    old.out = -1;
    auto config = config_ + ".restart";
    auto task = spec_.tasks.at(i);
    write_config(config);
    for (const auto& j : jobs_)
      if (j.job == task.job) {
        spawn(cli_, j, task.index, config, i);
        if (error_.empty())
          await_port(j, task.index, i);
      }
    std::remove(config.c_str());
    if (error_.empty() && spec_.tasks[i].port != task.port)
      error_ = "task " + std::to_string(i) + " came back on another port";
    return error_.empty();
  }

private:
  struct process {
    pid_t pid;
    int out;
  };

  static int& counter() {
    static int n = 0;
    return n;
  }

  /// Waits at most `limit` for `pid` to exit (on a pidfd, which becomes
  /// readable when it does) and reaps it.
  static bool reap(pid_t pid, std::chrono::seconds limit) {
    int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (fd >= 0) {
      pollfd p{fd, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(limit.count() * 1000));
      ::close(fd);
    }
    int status = 0;
    auto r = ::waitpid(pid, &status, WNOHANG);
    return r == pid || r < 0;
  }

  /// Starts task `index` of `job` with cluster file `config` as task
  /// `slot` of this set (the next one, or one to replace); `await_port`
  /// then reads where it listens.
  void spawn(const std::string& cli, const job_tasks& job, int index,
             const std::string& config, size_t slot) {
    int fds[2];
    // Close-on-exec: a task started later must not hold this one's pipe.
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      error_ = "pipe failed";
      return;
    }
    auto task = job.job + ":" + std::to_string(index);
    std::vector<std::string> args{
      cli,      "worker", "--config",  config,
      "--task", task,     "--threads", std::to_string(job.threads)};
    args.insert(args.end(), job.args.begin(), job.args.end());
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string netns;
    if (static_cast<size_t>(index) < job.namespaces.size())
      netns = "/var/run/netns/" + job.namespaces[index];
    auto parent = ::getpid();
    pid_t pid = ::fork();
    if (pid == 0) {
      // Into the task's network namespace, as `ip netns exec` does.
      if (!netns.empty()) {
        int fd = ::open(netns.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0 || ::setns(fd, CLONE_NEWNET) != 0)
          ::_exit(126);
        ::close(fd);
      }
      // The worker gets SIGTERM should the test process die first, so a
      // killed test leaves no worker behind.
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent)
        ::_exit(1);
      ::dup2(fds[1], STDOUT_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
      ::execv(cli.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    if (pid < 0) {
      ::close(fds[0]);
      error_ = "cannot start " + cli;
      return;
    }
    if (slot == workers_.size())
      workers_.push_back(process{pid, fds[0]});
    else
      workers_[slot] = process{pid, fds[0]};
  }

  /// Waits for the port line of task `index` of `job`, started as `slot`,
  /// and records the task.
  void await_port(const job_tasks& job, int index, size_t slot) {
    auto task = job.job + ":" + std::to_string(index);
    // "actorflow worker /job:J/task:T listening on HOST:PORT[ with TLS]
    // (bulk path HOST:PORT)".
    auto line = read_line(workers_[slot].out, std::chrono::seconds{60});
    auto on = line.find(" listening on ");
    auto end = line.find(' ', on == std::string::npos ? 0 : on + 14);
    auto at = line.rfind(':', end);
    auto bulk = line.find("(bulk path ");
    if (on == std::string::npos || end == std::string::npos
        || at == std::string::npos || at < on || bulk == std::string::npos) {
      error_ = "worker " + task + " printed '" + line + "'";
      return;
    }
    auto bulk_address = line.substr(bulk + 11, line.size() - bulk - 12);
    actors::cluster_task t;
    t.job = job.job;
    t.index = index;
    t.host = job.host(index);
    t.port = static_cast<uint16_t>(std::atoi(line.c_str() + at + 1));
    t.cpus = job.cpus;
    if (slot == spec_.tasks.size()) {
      spec_.tasks.push_back(t);
      bulk_.push_back(bulk_address);
    } else {
      spec_.tasks[slot] = t;
      bulk_[slot] = bulk_address;
    }
  }

  /// Reads one line from `fd`, waiting at most `limit` in all.
  static std::string read_line(int fd, std::chrono::seconds limit) {
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
      if (left <= 0)
        return line + " (timed out)";
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0)
        continue;
      char c;
      if (::read(fd, &c, 1) != 1)
        return line + " (closed)";
      if (c == '\n')
        return line;
      line += c;
    }
  }

  std::string cli_;
  std::vector<job_tasks> jobs_;
  std::string more_yaml_;
  std::string config_;
  std::string error_;
  std::vector<process> workers_;
  std::vector<std::string> bulk_;
  actors::cluster_spec spec_;
};

} // namespace actorflow::test
