#include "actorflow/actors/session.hpp"

#include <caf/send.hpp>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/interop/any_graph.hpp"
#include "client/caller_pool.hpp"

namespace actorflow::actors {

session::session(engine& e, session_options options)
  : engine_(e), handle_(e.spawn_session(options)),
    callers_(std::make_unique<detail::caller_pool>(e.system())) {
  // nop
}

session::~session() {
  close().ignore();
  caf::anon_send_exit(handle_, caf::exit_reason::user_shutdown);
}

core::status session::extend(const graph::graph& g) {
  core::status result;
  auto self = callers_->borrow();
  self->request(handle_, caf::infinite, extend_atom::value, g)
    .receive([](done_atom) {},
             [&](caf::error& err) { result = core::from_error(err); });
  return result;
}

core::status session::run(const feed_list& feeds,
                          const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets,
                          std::vector<core::tensor>* outputs,
                          run_metadata* metadata) {
  return run(run_options{}, feeds, fetches, targets, outputs, metadata);
}

core::status session::run(const run_options& options, const feed_list& feeds,
                          const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets,
                          std::vector<core::tensor>* outputs,
                          run_metadata* metadata) {
  if (options.timeout.count() < 0)
    return core::invalid_argument_error("a run's timeout must be >= 0 ms, got ",
                                        options.timeout.count());
  run_request req{feeds, fetches, targets, metadata != nullptr};
  req.timeout_ms = options.timeout.count();
  req.trace = options.trace;
  req.partition_graphs = options.output_partition_graphs;
  req.passes = options.passes;
  uint64_t run_id = 0;
  if (options.cancel != nullptr) {
    req.run_id = run_id = next_run_id_++;
    if (!options.cancel->add(handle_, run_id))
      return core::cancelled_error("the run was cancelled before it started");
  }
  core::status result;
  bool done = false;
  auto on_result = [&](run_result& r) {
    if (outputs != nullptr)
      *outputs = std::move(r.outputs);
    if (metadata != nullptr)
      *metadata = std::move(r.metadata);
    done = true;
  };
  auto on_error = [&](caf::error& err) {
    result = core::from_error(err);
    done = true;
  };
  auto self = callers_->borrow();
  auto response
    = self->request(handle_, caf::infinite, run_atom::value, std::move(req));
  if (!options.on_wait) {
    response.receive(on_result, on_error);
  } else {
    // Wait for this response alone, waking every poll_interval.
    while (!done) {
      caf::blocking_actor::accept_one_cond once;
      self->varargs_receive(
        once, response.id(), on_result, on_error,
        caf::after(options.poll_interval) >> [&] { options.on_wait(); });
    }
  }
  if (options.cancel != nullptr)
    options.cancel->remove(handle_, run_id);
  return result;
}

core::status session::extend(const std::string& path) {
  graph::graph g;
  ACTORFLOW_RETURN_IF_ERROR(
    interop::load_any_graph(path, engine_.context().ops(), &g));
  return extend(g);
}

core::status session::close() {
  if (closed_)
    return core::status::ok();
  closed_ = true;
  core::status result;
  auto self = callers_->borrow();
  self->request(handle_, caf::infinite, close_atom::value)
    .receive([](done_atom) {},
             [&](caf::error& err) { result = core::from_error(err); });
  return result;
}

} // namespace actorflow::actors
