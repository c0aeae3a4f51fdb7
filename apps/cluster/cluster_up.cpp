// `actorflow cluster up`: every task of a cluster file started on this
// machine and supervised.

#include "cluster/cluster_up.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <thread>

#include "actorflow/actors/cluster.hpp"
#include "cluster/local_capacity.hpp"
#include "common/exit_codes.hpp"
#include "common/flags.hpp"

namespace actorflow::apps {

namespace {

using clock_type = std::chrono::steady_clock;

/// One task's process: how it runs and what it printed so far.
struct child {
  std::string task; ///< job:index
  bool is_worker = false;
  pid_t pid = -1;      ///< -1 while not running.
  int out = -1;        ///< Its stdout and stderr.
  std::string partial; ///< A line not yet ended.
  int status = 0;      ///< As waitpid gave it, once exited.
  bool done = false;   ///< Exited 0.
  /// Started and silent so far: it has printed no line yet.
  bool starting = false;
  clock_type::time_point started_at;
};

std::string self_exe() {
  char buf[4096];
  auto n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "actorflow";
}

std::string describe(int status) {
  if (WIFEXITED(status))
    return "exited " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string{"killed by signal "} + std::to_string(WTERMSIG(status))
           + " (" + ::strsignal(WTERMSIG(status)) + ")";
  return "stopped";
}

class supervisor {
public:
  supervisor(const cluster_up_options& o, const actors::cluster_spec& spec)
    : o_(o), exe_(self_exe()) {
    for (const auto& t : spec.tasks) {
      child c;
      c.task = t.job + ":" + std::to_string(t.index);
      c.is_worker = t.job == "worker";
      children_.push_back(c);
    }
  }

  /// A status line, with when it happened (since the start).
  void note(const std::string& what) {
    std::printf(
      "cluster: %s (at %.1f s)\n", what.c_str(),
      std::chrono::duration<double>(clock_type::now() - started_).count());
    std::fflush(stdout);
  }

  /// The status line of a task.
  void say(const child& c, const std::string& what) {
    note(c.task + " " + what);
  }

  void start(child& c, bool resume) {
    std::vector<std::string> args{exe_};
    if (o_.command.empty()) {
      args.insert(args.end(),
                  {"worker", "--config", o_.config, "--task", c.task});
    } else {
      args.insert(args.end(), o_.command.begin(), o_.command.end());
      args.insert(args.end(), {"--cluster", o_.config, "--task", c.task});
      if (resume && o_.command.front() == "train")
        args.emplace_back("--resume");
    }
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      say(c, "cannot start: pipe failed");
      return;
    }
    auto pid = ::fork();
    if (pid == 0) {
      // The supervisor's signal mask is not the child's.
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      // A supervisor that dies takes its tasks with it.
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      ::dup2(fds[1], STDOUT_FILENO);
      ::dup2(fds[1], STDERR_FILENO);
      std::vector<char*> argv;
      for (auto& a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(exe_.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    if (pid < 0) {
      ::close(fds[0]);
      say(c, "cannot start: fork failed");
      return;
    }
    c.pid = pid;
    c.out = fds[0];
    c.starting = true;
    c.started_at = clock_type::now();
    last_start_ = clock_type::now();
    c.partial.clear();
    c.done = false;
    say(c, std::string{"running (pid "} + std::to_string(pid) + ")"
             + (resume && !o_.command.empty() ? ", resuming" : ""));
  }

  int run();

private:
  /// Queues every task to start (again, with `resume`).
  void start_all(bool resume) {
    for (auto& c : children_)
      queued_.push_back({&c, resume});
    start_queued();
  }

  /// Starts queued tasks while fewer than two per core are starting: a
  /// task counts as starting until it prints its first line, exits, or
  /// has been at it for 10 s. Hundreds forked at once on a few cores
  /// would all compete for them while each loads and binds; in waves the
  /// tasks listed first (a job's replicas) come up first.
  void start_queued() {
    auto now = clock_type::now();
    size_t starting = 0;
    for (auto& c : children_) {
      if (c.starting && now - c.started_at > std::chrono::seconds{10})
        c.starting = false;
      starting += c.starting && c.pid > 0 ? 1 : 0;
    }
    auto limit = std::max<size_t>(4, 2 * std::thread::hardware_concurrency());
    while (!queued_.empty() && starting < limit) {
      auto [c, resume] = queued_.front();
      queued_.pop_front();
      start(*c, resume);
      starting += c->pid > 0 ? 1 : 0;
    }
  }

  /// Prints what `c` wrote, a line at a time, prefixed with its task.
  void forward(child& c) {
    char buf[4096];
    auto n = ::read(c.out, buf, sizeof buf);
    if (n <= 0) {
      ::close(c.out);
      c.out = -1;
      if (!c.partial.empty())
        print_line(c, c.partial);
      c.partial.clear();
      return;
    }
    c.partial.append(buf, static_cast<size_t>(n));
    if (c.partial.find('\n') != std::string::npos)
      c.starting = false;
    for (auto nl = c.partial.find('\n'); nl != std::string::npos;
         nl = c.partial.find('\n')) {
      print_line(c, c.partial.substr(0, nl));
      c.partial.erase(0, nl + 1);
    }
  }

  void print_line(const child& c, const std::string& line) {
    if (o_.quiet)
      return;
    // A progress bar redraws itself with \r: its last state only.
    auto cr = line.rfind('\r');
    std::printf("[%s] %s\n", c.task.c_str(),
                (cr == std::string::npos ? line : line.substr(cr + 1)).c_str());
    std::fflush(stdout);
  }

  /// Records the exits of the children that ended.
  std::vector<child*> reap() {
    std::vector<child*> ended;
    for (;;) {
      int status = 0;
      auto pid = ::waitpid(-1, &status, WNOHANG);
      if (pid <= 0)
        return ended;
      for (auto& c : children_)
        if (c.pid == pid) {
          while (c.out >= 0)
            forward(c);
          c.pid = -1;
          c.starting = false;
          c.status = status;
          c.done = WIFEXITED(status) && WEXITSTATUS(status) == 0;
          say(c, describe(status));
          ended.push_back(&c);
        }
    }
  }

  /// SIGTERM to every running child, SIGKILL to those left after 10 s.
  void stop_all() {
    queued_.clear();
    for (auto& c : children_)
      if (c.pid > 0)
        ::kill(c.pid, SIGTERM);
    auto deadline = clock_type::now() + std::chrono::seconds{10};
    while (running() > 0) {
      if (clock_type::now() > deadline)
        for (auto& c : children_)
          if (c.pid > 0)
            ::kill(c.pid, SIGKILL);
      pump(100);
    }
  }

  size_t running() const {
    size_t n = 0;
    for (const auto& c : children_)
      n += c.pid > 0 ? 1 : 0;
    return n;
  }

  /// Waits up to `ms` for output or signals and handles them; returns
  /// the children that ended.
  std::vector<child*> pump(int ms);

  const cluster_up_options& o_;
  std::string exe_;
  std::vector<child> children_;
  std::deque<std::pair<child*, bool>> queued_; ///< To start, and resume?
  int signals_ = -1;
  bool stopping_ = false;
  clock_type::time_point last_start_ = clock_type::now();
  clock_type::time_point started_ = clock_type::now();
};

std::vector<child*> supervisor::pump(int ms) {
  std::vector<pollfd> fds{{signals_, POLLIN, 0}};
  std::vector<child*> who{nullptr};
  for (auto& c : children_)
    if (c.out >= 0) {
      fds.push_back({c.out, POLLIN, 0});
      who.push_back(&c);
    }
  ::poll(fds.data(), fds.size(), ms);
  for (size_t i = 1; i < fds.size(); ++i)
    if (fds[i].revents != 0)
      forward(*who[i]);
  if (fds[0].revents != 0) {
    signalfd_siginfo info;
    while (::read(signals_, &info, sizeof info) == sizeof info)
      if (info.ssi_signo == SIGINT || info.ssi_signo == SIGTERM)
        stopping_ = true;
  }
  return reap();
}

int supervisor::run() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &mask, nullptr);
  signals_ = ::signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  start_all(false);
  bool job = !o_.command.empty();
  int restarts = 0;
  auto backoff = std::chrono::milliseconds{500};
  while (!stopping_) {
    // While tasks wait to start, look again at those starting now and then.
    auto ended = pump(queued_.empty() ? -1 : 100);
    start_queued();
    if (stopping_)
      break;
    if (job) {
      bool workers_done = true;
      for (const auto& c : children_)
        workers_done = workers_done && (!c.is_worker || c.done);
      if (workers_done) {
        note("every worker finished");
        stop_all();
        return 0;
      }
    }
    for (auto* c : ended) {
      if (c->done || stopping_)
        continue;
      if (WIFEXITED(c->status) && WEXITSTATUS(c->status) == cannot_start_exit) {
        // Its port taken, its file wrong: a restart fails the same way.
        note(c->task
             + " could not start (its output above says why); "
               "giving up");
        stop_all();
        return 1;
      }
      // A minute without a failure: the failures are no longer in a row.
      if (clock_type::now() - last_start_ > std::chrono::minutes{1}) {
        restarts = 0;
        backoff = std::chrono::milliseconds{500};
      }
      if (++restarts > o_.max_restarts) {
        note(std::to_string(o_.max_restarts) + " restarts in a row; giving up");
        stop_all();
        return 1;
      }
      char delay[32];
      std::snprintf(delay, sizeof delay, "%.1f s",
                    static_cast<double>(backoff.count()) / 1e3);
      note(c->task + " failed; "
           + (job ? "restarting the job from its last checkpoint"
                  : "restarting it")
           + " in " + delay);
      if (job)
        stop_all();
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds{8000});
      if (job) {
        start_all(true);
        break; // the others' exits belong to the old job
      }
      start(*c, false);
    }
  }
  note("stopping every task");
  stop_all();
  return 0;
}

} // namespace

int run_cluster_up(const cluster_up_options& o) {
  actors::cluster_spec spec;
  auto st = actors::cluster_spec::load(o.config, &spec);
  if (!st.is_ok()) {
    std::fprintf(stderr, "actorflow cluster up: %s\n", st.to_string().c_str());
    return 1;
  }
  for (const auto& t : spec.tasks)
    if (t.port == 0) {
      std::fprintf(stderr,
                   "actorflow cluster up: task %s has port 0; the tasks "
                   "find each other by the file's ports, give each one\n",
                   t.name().c_str());
      return 1;
    }
  // Nothing starts unless all of it can: one error now, not a task that
  // fails later among hundreds.
  st = check_local_capacity(spec);
  if (!st.is_ok()) {
    std::fprintf(stderr, "actorflow cluster up: %s\n", st.to_string().c_str());
    return 1;
  }
  supervisor s{o, spec};
  return s.run();
}

void add_cluster_command(CLI::App& app, command_list* out) {
  auto up = std::make_shared<cluster_up_options>();
  auto* cluster = app.add_subcommand(
    "cluster", "Run every task of a cluster file on this machine");
  cluster->require_subcommand(1);
  auto* cmd = cluster->add_subcommand(
    "up", "Start every task of the file, print a status line per task and "
          "their output, restart what dies (a job: all of it, from its last "
          "checkpoint), stop them all on Ctrl-C. After --, what each task "
          "runs: `-- train fashion-mnist --sync` runs `actorflow train "
          "fashion-mnist --sync --cluster F --task T`; none: `actorflow "
          "worker`");
  cmd->add_option("--config", up->config, "The cluster file (YAML)")
    ->required()
    ->check(CLI::ExistingFile);
  cmd
    ->add_option("--max-restarts", up->max_restarts,
                 "Restarts in a row after which it gives up")
    ->capture_default_str()
    ->check(int_range(0, 1000));
  cmd->add_flag("--quiet", up->quiet,
                "Only the status lines, not the tasks' output");
  cmd->add_option("command", up->command,
                  "After --: the actorflow command each task runs");
  out->push_back({cmd, [up] { return run_cluster_up(*up); }});
}

} // namespace actorflow::apps
