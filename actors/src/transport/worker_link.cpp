#include "transport/worker_link.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <utility>

#include <caf/actor_cast.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/sec.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actorflow/core/caf_error.hpp"

namespace actorflow::actors {

caf::io::middleman_actor connector(caf::actor_system& sys, bool tls) {
  return tls ? sys.openssl_manager().actor_handle()
             : sys.middleman().actor_handle();
}

bool timed_out(const caf::error& err) {
  return err == caf::sec::request_timeout
         || err == caf::sec::connection_timeout;
}

core::status worker_at(caf::actor_system& sys, caf::strong_actor_ptr ptr,
                       const std::set<std::string>& ifs, worker_actor* out) {
  if (!ptr)
    return core::unavailable_error("nothing is published there");
  if (!sys.assignable<worker_actor>(ifs))
    return core::unavailable_error(
      "what is published there is not an actorflow worker (another program, "
      "or another version of actorflow)");
  *out = caf::actor_cast<worker_actor>(std::move(ptr));
  return core::status::ok();
}

namespace {

/// `connect_worker`'s actor: where it connects, how it tries, and what it
/// got once it is done.
struct connection_state {
  std::string host;
  uint16_t port = 0;
  bool tls = false;
  retry_policy retry;
  int tries = 0;
  std::chrono::milliseconds pause{20};
  std::chrono::steady_clock::time_point start;
  bool done = false;
  worker_actor worker;
  caf::error failure;
  /// The one who asked, before the outcome was there.
  caf::typed_response_promise<worker_actor> asked;
  bool waiting = false;
  static inline const char* name = "worker_connection";
};

using connection_ptr = worker_connection::stateful_pointer<connection_state>;

/// Hands the outcome to whoever asked, then quits; keeps it until then.
void settle(connection_ptr self, worker_actor worker, caf::error failure) {
  auto& st = self->state;
  st.done = true;
  st.worker = std::move(worker);
  st.failure = std::move(failure);
  if (!st.waiting)
    return;
  if (st.failure)
    st.asked.deliver(st.failure);
  else
    st.asked.deliver(st.worker);
  self->quit();
}

void try_once(connection_ptr self) {
  auto& st = self->state;
  ++st.tries;
  self
    ->request(connector(self->system(), st.tls), st.retry.try_timeout,
              caf::connect_atom::value, st.host, st.port)
    .then(
      [self](const caf::node_id&, caf::strong_actor_ptr& ptr,
             const std::set<std::string>& ifs) {
        worker_actor worker;
        auto found = worker_at(self->system(), std::move(ptr), ifs, &worker);
        if (!found.is_ok()) {
          settle(self, {}, core::to_error(found));
          return;
        }
        settle(self, std::move(worker), {});
      },
      [self](caf::error& err) {
        auto& st = self->state;
        auto within = st.retry.within.count() == 0
                      || std::chrono::steady_clock::now() + st.pause
                           < st.start + st.retry.within;
        if (st.tries >= st.retry.attempts || !within
            || (!st.retry.any_failure && !timed_out(err))) {
          settle(self, {}, std::move(err));
          return;
        }
        if (!st.retry.any_failure) {
          try_once(self);
          return;
        }
        self->delayed_send(self, st.pause, try_again_atom::value);
        st.pause = std::min(st.pause * 2, std::chrono::milliseconds{500});
      });
}

worker_connection::behavior_type connection(connection_ptr self,
                                            std::string host, uint16_t port,
                                            bool tls, retry_policy retry) {
  auto& st = self->state;
  st.host = std::move(host);
  st.port = port;
  st.tls = tls;
  st.retry = retry;
  st.retry.attempts = std::max(st.retry.attempts, 1);
  st.start = std::chrono::steady_clock::now();
  try_once(self);
  return {
    [self](caf::connect_atom) -> caf::result<worker_actor> {
      auto& st = self->state;
      if (st.done) {
        self->quit();
        if (st.failure)
          return st.failure;
        return st.worker;
      }
      st.waiting = true;
      st.asked = self->make_response_promise<worker_actor>();
      return st.asked;
    },
    [self](try_again_atom) { try_once(self); },
  };
}

} // namespace

worker_connection connect_worker(caf::actor_system& sys, std::string host,
                                 uint16_t port, bool tls, retry_policy retry) {
  return sys.spawn(connection, std::move(host), port, tls, retry);
}

std::string connect_error_text(caf::actor_system& sys, const caf::error& err) {
  if (err.category() == core::error_category)
    return core::from_error(err).message();
  auto text = sys.render(err);
  // EMFILE: every connection is a file; say which limit and what to do.
  rlimit files{};
  if (text.find("Too many open files") != std::string::npos
      && ::getrlimit(RLIMIT_NOFILE, &files) == 0)
    text += ": this process may hold at most " + std::to_string(files.rlim_cur)
            + " open files (ulimit -n), one per connection to another task "
              "among them; raise the limit (ulimit -n, or LimitNOFILE= in a "
              "systemd unit) above the number of tasks plus 64";
  return text;
}

} // namespace actorflow::actors
