#include "worker_link.hpp"

#include <caf/actor_cast.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/sec.hpp>

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

} // namespace actorflow::actors
