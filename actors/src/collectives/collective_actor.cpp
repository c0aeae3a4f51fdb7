#include "collectives/collective_actor.hpp"

#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/device_name.hpp"
#include "collectives/collective_ring.hpp"
#include "transport/bulk_transport.hpp"
#include "transport/peer_guard.hpp"
#include "transport/worker_link.hpp"
#include "worker/task_of.hpp"

namespace actorflow::actors {

namespace {

using detail::chunk_range;
using detail::received_chunk;
using detail::ring;
using detail::sent_chunk;

// Chunks travel as value_msgs: tag (instance key, run, ring step), from
// member `slot` to member `node`. A failed value holding a string tells
// the other members why a run failed.

/// How often a member's process is asked for before its runs fail.
constexpr int max_attempts = 3;

/// One run of an instance on one local member.
using run_key = std::tuple<int64_t, uint64_t, int>;

/// A local member's part in one run of an all-reduce.
struct execution {
  ops::collective_spec spec;
  /// Whether the local member has run it (else values from the others
  /// arrived first).
  bool started = false;
  uint64_t step = 0;
  core::tensor data;
  ops::collective_executor::done_fn done;
  /// The ring step whose chunk comes next.
  int64_t next = 0;
  /// Chunks that came ahead of their turn, by ring step.
  std::map<int64_t, value_msg> early;
  /// Why it failed before it started here.
  core::status failed;
};

/// Another process of the group, once known.
struct member_link {
  value_sink actor;
  std::string bulk_address;
  uint64_t bulk_key = 0;
  bool asked = false;
  /// Failed attempts to reach it.
  int attempts = 0;
  /// Chunks to send once it is known.
  std::vector<value_msg> waiting;
};

struct collective_state {
  std::string task;
  std::shared_ptr<bulk_transport> bulk;
  bool tls = false;
  std::chrono::milliseconds timeout{10000};
  /// The workers sessions told of, by task.
  std::map<std::string, peer_entry> workers;
  std::map<std::string, member_link> links;
  /// Runs so far of each (instance key, local rank).
  std::map<std::pair<int64_t, int>, uint64_t> runs;
  std::map<run_key, execution> execs;

  static inline const char* name = "actorflow.collectives";
};

using self_ptr = collective_actor::stateful_pointer<collective_state>;

std::string describe(const run_key& key, const ops::collective_spec& spec) {
  std::string members;
  for (const auto& m : spec.members)
    members += (members.empty() ? "" : ", ") + m;
  return core::detail::str_cat("all-reduce instance ", std::get<0>(key),
                               " (run ", std::get<1>(key), ") among [", members,
                               "]");
}

void transmit(self_ptr self, member_link& link, value_msg&& m) {
  auto& bulk = self->state.bulk;
  if (bulk && !link.bulk_address.empty() && bulk->wants(m))
    bulk->send(link.bulk_address, link.bulk_key, std::move(m), link.actor);
  else
    self->send(link.actor, std::move(m));
}

void resolve(self_ptr self, const std::string& task);

/// Sends `m` to the process of member `member`.
void send_to(self_ptr self, const std::string& member, value_msg&& m) {
  auto task = detail::task_of(member);
  if (task == self->state.task) {
    self->send(caf::actor_cast<value_sink>(self), std::move(m));
    return;
  }
  auto& link = self->state.links[task];
  if (link.actor) {
    transmit(self, link, std::move(m));
    return;
  }
  link.waiting.push_back(std::move(m));
  resolve(self, task);
}

/// Fails run `key`: its kernel learns why (now, or when it runs here);
/// with `tell`, the other members too.
void fail(self_ptr self, const run_key& key, const core::status& why,
          bool tell) {
  auto i = self->state.execs.find(key);
  if (i == self->state.execs.end())
    return;
  if (!i->second.started) {
    // Values came ahead of the local run, which will fail when it comes.
    if (i->second.failed.is_ok())
      i->second.failed = why;
    i->second.early.clear();
    return;
  }
  // Out of the table first: telling a member that cannot be reached fails
  // the runs it is in, which must not find this one again.
  auto ex = std::move(i->second);
  self->state.execs.erase(i);
  if (tell) {
    const auto& members = ex.spec.members;
    for (int r = 0; r < static_cast<int>(members.size()); ++r) {
      if (r == ex.spec.rank)
        continue;
      value_msg m;
      m.tag = tag{static_cast<uint64_t>(std::get<0>(key)), std::get<1>(key), 0};
      m.slot = ex.spec.rank;
      m.node = r;
      m.state = value_state::failed;
      m.value.value = core::tensor::scalar(
        "member " + members[static_cast<size_t>(ex.spec.rank)]
        + " failed the run: " + why.message());
      send_to(self, members[static_cast<size_t>(r)], std::move(m));
    }
  }
  ex.done(why, core::tensor{});
}

/// Fails every run with a member in `task`.
void fail_task(self_ptr self, const std::string& task, const std::string& why) {
  std::vector<run_key> hit;
  for (const auto& [key, ex] : self->state.execs)
    for (const auto& m : ex.spec.members)
      if (detail::task_of(m) == task) {
        hit.push_back(key);
        break;
      }
  for (const auto& key : hit) {
    auto i = self->state.execs.find(key); // failing one may fail others
    if (i == self->state.execs.end())
      continue;
    fail(self, key,
         core::unavailable_error(describe(key, i->second.spec),
                                 ": member task ", task, " ", why),
         true);
  }
}

void resolve(self_ptr self, const std::string& task) {
  auto& link = self->state.links[task];
  if (link.asked)
    return;
  link.asked = true;
  auto w = self->state.workers.find(task);
  if (w == self->state.workers.end()) {
    self->state.links.erase(task);
    fail_task(self, task,
              "is not a worker of this session (the members of a collective "
              "must be workers of the session that runs it)");
    return;
  }
  // Two members that connect to each other at once may both see their
  // connection dropped for the other's (BASP keeps one per pair of
  // nodes): a second attempt finds the one that stayed.
  auto fails = [self, task](caf::error& err) {
    auto& link = self->state.links[task];
    if (++link.attempts < max_attempts) {
      link.asked = false;
      resolve(self, task);
      return;
    }
    self->state.links.erase(task);
    fail_task(self, task, "cannot be reached: " + self->system().render(err));
  };
  auto ask = [self, task, fails](const worker_actor& worker) {
    self->request(worker, self->state.timeout, collective_atom::value)
      .then(
        [self, task](recv_entry& e) {
          auto& link = self->state.links[task];
          link.actor = caf::actor_cast<value_sink>(e.actor);
          link.bulk_address = e.bulk_address;
          link.bulk_key = e.bulk_key;
          self->monitor(link.actor);
          auto waiting = std::move(link.waiting);
          link.waiting.clear();
          for (auto& m : waiting)
            transmit(self, link, std::move(m));
        },
        fails);
  };
  const auto& peer = w->second;
  if (peer.port == 0) { // in the process of the session that told of it
    ask(caf::actor_cast<worker_actor>(peer.worker));
    return;
  }
  retry_policy retry;
  retry.attempts = max_attempts;
  retry.try_timeout = self->state.timeout;
  retry.any_failure = true;
  self
    ->request(connect_worker(self->system(), peer.host, peer.port,
                             self->state.tls, retry),
              caf::infinite, caf::connect_atom::value)
    .then([ask](const worker_actor& worker) { ask(worker); },
          [self, task](caf::error& err) {
            self->state.links.erase(task);
            fail_task(self, task,
                      "cannot be reached: "
                        + connect_error_text(self->system(), err));
          });
}

/// Sends ring step `s`'s chunk of run `key` to the next member.
void send_step(self_ptr self, const run_key& key, execution& ex, int64_t s) {
  auto n = static_cast<int>(ex.spec.members.size());
  auto r = ex.spec.rank;
  auto [begin, end]
    = chunk_range(ex.data.num_elements(), n, sent_chunk(r, n, s));
  core::tensor chunk{ex.data.dtype(), core::shape{end - begin}};
  auto width = core::size_of(ex.data.dtype());
  std::memcpy(chunk.raw_mutable_data(),
              static_cast<const char*>(ex.data.raw_data()) + begin * width,
              static_cast<size_t>(end - begin) * width);
  value_msg m;
  m.tag = tag{static_cast<uint64_t>(std::get<0>(key)), std::get<1>(key), s};
  m.slot = r;
  m.node = ring(r + 1, n);
  m.value.value = std::move(chunk);
  send_to(self, ex.spec.members[static_cast<size_t>(m.node)], std::move(m));
}

/// Takes ring step `m.tag.iter`'s chunk into run `key`; true when the run
/// is over (done or failed).
bool take_chunk(self_ptr self, const run_key& key, execution& ex,
                value_msg& m) {
  auto n = static_cast<int>(ex.spec.members.size());
  auto r = ex.spec.rank;
  auto s = m.tag.iter;
  auto c = received_chunk(r, n, s);
  auto [begin, end] = chunk_range(ex.data.num_elements(), n, c);
  const auto& in = m.value.value;
  if (!in.valid() || in.dtype() != ex.data.dtype()
      || in.num_elements() != end - begin) {
    fail(self, key,
         core::invalid_argument_error(
           describe(key, ex.spec), ": member ",
           ex.spec.members[static_cast<size_t>(ring(r - 1, n))], " sent ",
           in.valid() ? in.debug_string(0) : std::string{"no tensor"},
           " for a chunk of ", end - begin, " ",
           core::to_string(ex.data.dtype()),
           " elements: do all members reduce the same dtype and shape?"),
         true);
    return true;
  }
  auto width = core::size_of(ex.data.dtype());
  if (s < n - 1) {
    auto st = ops::add_chunk(ex.data, begin, in);
    if (!st.is_ok()) {
      fail(self, key, st, true);
      return true;
    }
  } else {
    std::memcpy(static_cast<char*>(ex.data.raw_mutable_data()) + begin * width,
                in.raw_data(), static_cast<size_t>(end - begin) * width);
  }
  ex.next = s + 1;
  if (ex.next < 2 * (n - 1)) {
    send_step(self, key, ex, ex.next);
    return false;
  }
  return true;
}

/// Runs the chunks of `key` that are in, in order; finishes the run when
/// the last is.
void advance(self_ptr self, const run_key& key) {
  for (;;) {
    auto i = self->state.execs.find(key);
    if (i == self->state.execs.end())
      return;
    auto& ex = i->second;
    auto n = static_cast<int64_t>(ex.spec.members.size());
    if (ex.next >= 2 * (n - 1)) {
      auto st
        = ex.spec.mean ? ops::divide_elements(ex.data, n) : core::status::ok();
      auto done = std::move(ex.done);
      auto data = std::move(ex.data);
      self->state.execs.erase(i);
      done(st, st.is_ok() ? std::move(data) : core::tensor{});
      return;
    }
    auto e = ex.early.find(ex.next);
    if (e == ex.early.end())
      return;
    auto m = std::move(e->second);
    ex.early.erase(e);
    if (take_chunk(self, key, ex, m) && !self->state.execs.count(key))
      return;
  }
}

void start(self_ptr self, collective_run_msg& m) {
  auto& st = self->state;
  auto n = static_cast<int>(m.spec.members.size());
  auto seq = ++st.runs[{m.spec.instance_key, m.spec.rank}];
  run_key key{m.spec.instance_key, seq, m.spec.rank};
  auto& ex = st.execs[key];
  ex.spec = std::move(m.spec);
  ex.step = m.step;
  ex.done = std::move(m.done);
  ex.started = true;
  if (!ex.failed.is_ok()) {
    fail(self, key, ex.failed, false);
    return;
  }
  auto type = m.input.dtype();
  if (type != core::dtype::float32 && type != core::dtype::float64
      && type != core::dtype::int32 && type != core::dtype::int64) {
    fail(self, key,
         core::invalid_argument_error(describe(key, ex.spec), ": cannot sum ",
                                      core::to_string(type)),
         true);
    return;
  }
  // The sum goes over the input where nothing else holds it (a
  // gradient); a variable's value is copied first.
  if (m.input.unique() && m.input.memory() == core::memory_type::host) {
    ex.data = std::move(m.input);
  } else {
    auto copy = m.input.deep_copy(&ex.data);
    if (!copy.is_ok()) {
      fail(self, key, copy, true);
      return;
    }
  }
  if (n > 1)
    send_step(self, key, ex, 0);
  advance(self, key);
}

collective_actor::behavior_type
collective_behavior(self_ptr self, std::string task,
                    std::shared_ptr<bulk_transport> bulk, bool tls,
                    std::chrono::milliseconds timeout) {
  self->state.task = std::move(task);
  self->state.bulk = std::move(bulk);
  self->state.tls = tls;
  self->state.timeout = timeout;
  self->set_down_handler([self](caf::down_msg& dm) {
    for (auto i = self->state.links.begin(); i != self->state.links.end(); ++i)
      if (i->second.actor && i->second.actor.address() == dm.source) {
        auto task = i->first;
        self->state.links.erase(i);
        fail_task(self, task, "is gone");
        return;
      }
  });
  return {
    [self](collective_run_msg& m) { start(self, m); },
    [self](value_msg& m) {
      if (detail::refuse_malformed(self, m.wire_error))
        return;
      run_key key{static_cast<int64_t>(m.tag.step), m.tag.frame, m.node};
      auto& ex = self->state.execs[key];
      if (m.state == value_state::failed) {
        const auto& v = m.value.value;
        auto why = v.valid() && v.dtype() == core::dtype::string
                       && v.num_elements() == 1
                     ? v.scalar_value<std::string>()
                     : std::string{"a member failed"};
        fail(self, key, core::aborted_error(why), false);
        return;
      }
      if (!ex.failed.is_ok())
        return;
      ex.early.emplace(m.tag.iter, std::move(m));
      if (ex.started)
        advance(self, key);
    },
    [self](collective_cancel_msg m) {
      std::vector<run_key> hit;
      for (const auto& [key, ex] : self->state.execs)
        if (ex.started && ex.step == m.step)
          hit.push_back(key);
      for (const auto& key : hit) {
        auto i = self->state.execs.find(key);
        if (i == self->state.execs.end())
          continue;
        const auto& spec = i->second.spec;
        fail(self, key,
             core::cancelled_error(
               describe(key, spec), ": step ", m.step, " failed on member ",
               spec.members[static_cast<size_t>(spec.rank)]),
             true);
      }
    },
    [self](peers_atom, const peer_table& peers) {
      for (const auto& p : peers)
        if (p.worker)
          self->state.workers[p.task] = p;
    },
  };
}

/// The ops::collective_executor kernels see.
class actor_collectives : public ops::collective_executor {
public:
  explicit actor_collectives(collective_actor hdl) : hdl_(std::move(hdl)) {
    // nop
  }

  void all_reduce(const ops::collective_spec& spec, core::tensor input,
                  uint64_t step, done_fn done) override {
    caf::anon_send(
      hdl_, collective_run_msg{spec, std::move(input), step, std::move(done)});
  }

  void cancel_step(uint64_t step) override {
    caf::anon_send(hdl_, collective_cancel_msg{step});
  }

private:
  collective_actor hdl_;
};

} // namespace

collective_actor spawn_collectives(caf::actor_system& sys, std::string task,
                                   std::shared_ptr<bulk_transport> bulk,
                                   bool tls, std::chrono::milliseconds timeout,
                                   recv_entry* endpoint) {
  // Hidden, as CAF's own service actors: it does not count as running
  // (a user awaiting the registry's count waits for sessions, not it).
  auto hdl
    = sys.spawn<caf::hidden>(collective_behavior, task, bulk, tls, timeout);
  endpoint->tensor_name = std::move(task);
  endpoint->actor = caf::actor_cast<caf::strong_actor_ptr>(hdl);
  if (bulk) {
    endpoint->bulk_address = bulk->address();
    endpoint->bulk_key = bulk->add_route(caf::actor_cast<value_sink>(hdl));
  }
  return hdl;
}

std::shared_ptr<ops::collective_executor>
make_collective_executor(collective_actor hdl) {
  return std::make_shared<actor_collectives>(std::move(hdl));
}

} // namespace actorflow::actors
