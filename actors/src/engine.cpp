#include "actorflow/actors/engine.hpp"

#include <algorithm>
#include <thread>

#include <fstream>
#include <utility>

#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/send.hpp>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/logging.hpp"
#include "actorflow/devices/gpu.hpp"
#include "actorflow/ops/registration.hpp"
#include "collectives/collective_actor.hpp"
#include "master/master.hpp"
#include "queues/queue_actor.hpp"
#include "transport/bulk_transport.hpp"
#include "transport/openssl_error_queue.hpp"
#include "worker/worker.hpp"

namespace actorflow::actors {

namespace {

/// Why the TLS files cannot be used, or ok.
core::status check_tls_files(const tls_files& tls) {
  for (auto [what, path] :
       {std::pair{"CA", &tls.ca}, std::pair{"certificate", &tls.certificate},
        std::pair{"key", &tls.key}}) {
    if (path->empty())
      return core::invalid_argument_error("TLS needs a ", what,
                                          " file (PEM); none was named");
    std::ifstream in{*path};
    if (!in)
      return core::not_found_error("cannot read the TLS ", what, " file '",
                                   *path, "'");
  }
  return core::status::ok();
}

} // namespace

engine::engine(engine_options options)
  : own_cfg_(std::make_unique<caf::actor_system_config>()) {
  add_message_types(*own_cfg_);
  // One worker per core. CAF's own default is at least 4 workers, which on
  // a 2-core machine makes the workers preempt each other: measured, a
  // node hop costs 550-720 ns with 4 workers and 410-420 with 2, a loop
  // iteration 24 us against 18 (docs/performance.md).
  auto threads = options.scheduler_threads > 0
                   ? static_cast<size_t>(options.scheduler_threads)
                   : std::max<size_t>(std::thread::hardware_concurrency(), 1);
  own_cfg_->set("scheduler.max-threads", threads);
  // An actor hands its scheduler thread back after this many messages in
  // one go. CAF's default is no limit: an actor whose mailbox never runs
  // dry -- a loop's group actor, which posts itself a note to go on after
  // each batch of iterations -- kept its thread for good, and on a worker
  // with one thread nothing else ran: not the abort of that very step, not
  // the BASP heartbeats (the peers then dropped the worker as silent).
  own_cfg_->set("scheduler.max-throughput", size_t{64});
  // An idle worker sleeps on its condition variable after CAF's short
  // aggressive polling phase, instead of polling for work every 50 us
  // (CAF's default: for 25 ms; a message for it wakes it anyway). Those
  // polls cost the cores more than their time asleep, a VM's timer
  // wake-ups being dear: while one worker ran a convolution split over the
  // pool, the polls of the other, idle one made the pool's slice take
  // 14-15 ms instead of 10.5 (train --model cnn); the MLP step took 2.4-2.7
  // ms with 1 ms of polls and 2.1-2.3 without (bench_mlp, interleaved).
  // Between processes sharing cores the polls took the cores the work
  // needed (a remote round trip 450-2100 us -> 190-300 us, the ps/worker
  // MLP step 11.5 -> 8.2 ms). A chain of steps in flight, P2's loop and
  // the CNN step measured the same either way (docs/performance.md).
  own_cfg_->set("work-stealing.moderate-poll-attempts", size_t{0});
  // A lone scheduler thread has nobody to steal from, so its sleep need
  // not end every 10 ms (CAF's relaxed sleep, which exists to steal): a
  // message for it wakes it. An idle one-thread worker woke 100 times a
  // second: 64 of them and a client took 14.6 % of a core, 3.0 % without
  // (bench_scale, docs/scale.md). With more threads a sleeping one still
  // has to look at the others' queues, and keeps CAF's period.
  if (threads == 1)
    own_cfg_->set("work-stealing.relaxed-sleep-duration",
                  caf::timespan{std::chrono::seconds{1}});
  core::status tls_status;
  if (options.network && options.tls.enabled()) {
    tls_status = check_tls_files(options.tls);
    // Never plain instead: without usable files there is no network.
    if (!tls_status.is_ok())
      options.network = false;
  }
  if (options.network) {
    own_cfg_->load<caf::io::middleman>();
    own_cfg_->set("middleman.heartbeat-interval",
                  caf::timespan{options.heartbeat});
    if (options.peer_timeout.count() > 0)
      own_cfg_->set("middleman.connection-timeout",
                    caf::timespan{options.peer_timeout});
    if (options.tls.enabled()) {
      // Any of these set turns the module's authentication on: mutual
      // TLS, peers verified against the CA.
      own_cfg_->load<caf::openssl::manager>();
      own_cfg_->openssl_cafile = options.tls.ca;
      own_cfg_->openssl_certificate = options.tls.certificate;
      own_cfg_->openssl_key = options.tls.key;
      own_cfg_->openssl_passphrase = options.tls.passphrase;
      tls_ = true;
      if (!detail::ssl_error_queue_cleared_before_io())
        core::log().warn(
          "TLS: OpenSSL's error queue is not cleared before CAF's I/O calls "
          "(actors/src/transport/openssl_error_queue.cpp): a failed handshake "
          "may "
          "drop other connections");
    }
  }
  own_sys_ = std::make_unique<caf::actor_system>(*own_cfg_);
  sys_ = own_sys_.get();
  init(options);
  if (init_.is_ok() && !tls_status.is_ok())
    init_ = tls_status;
}

engine::engine(caf::actor_system& sys, engine_options options) : sys_(&sys) {
  init(options);
}

engine::~engine() {
  // Queue actors fail their waiting requests before the sessions stop.
  rt_->resources().clear_queues();
  std::lock_guard<std::mutex> guard{mtx_};
  for (const auto& addr : sessions_)
    if (auto hdl = caf::actor_cast<caf::actor>(addr))
      caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(worker_, caf::exit_reason::user_shutdown);
  rt_->resources().set_collectives(nullptr);
  caf::anon_send_exit(collectives_, caf::exit_reason::user_shutdown);
  // An owned actor system waits for every actor in its destructor.
}

void engine::add_message_types(caf::actor_system_config& cfg) {
  cfg.add_error_category(core::error_category, core::render_error);
  cfg.set("middleman.app-identifiers",
          std::vector<std::string>{wire_identifier});
  // The names on the wire: the same on every process of a cluster.
  cfg.add_message_type<value_msg>("actorflow.value");
  cfg.add_message_type<partition_set>("actorflow.partition_set");
  cfg.add_message_type<registration>("actorflow.registration");
  cfg.add_message_type<recv_entry>("actorflow.recv_entry");
  cfg.add_message_type<recv_table>("actorflow.recv_table");
  cfg.add_message_type<peer_entry>("actorflow.peer_entry");
  cfg.add_message_type<peer_table>("actorflow.peer_table");
  cfg.add_message_type<run_step_msg>("actorflow.run_step");
  cfg.add_message_type<step_report>("actorflow.step_report");
}

void engine::init(const engine_options& options) {
  ops::op_registry registry;
  ops::kernel_registry kernels;
  init_ = ops::register_ops(registry);
  ops::register_cpu_kernels(kernels);
  ops::configure_cpu_blas();
  auto threads = options.threads_per_device;
  if (threads <= 0)
    threads
      = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto devices = devices::device_set::make_local(
    std::max(1, options.num_cpu_devices), threads, options.job, options.task,
    options.pool_spin);
  if (options.num_gpu_devices != 0 && init_.is_ok()) {
    int gpus = 0;
    init_ = devices::add_gpu_devices(devices, options.num_gpu_devices,
                                     options.job, options.task, &gpus);
    if (gpus > 0)
      ops::register_gpu_kernels(kernels);
  }
  rt_ = std::make_shared<runtime_context>(
    std::move(registry), std::move(kernels), std::move(devices),
    options.default_device);
  rt_->resources().set_queue_factory(make_queue_factory(*sys_));
  if (init_.is_ok()) {
    auto spec = core::device_name::parse(options.default_device);
    if (!spec || rt_->devices().matching(*spec).empty())
      init_ = core::invalid_argument_error(
        "default device '", options.default_device, "' matches no device");
  }
  std::shared_ptr<bulk_transport> bulk;
  if (options.network && !options.host.empty() && init_.is_ok())
    init_ = bulk_transport::start(options.host, options.bulk_min_bytes,
                                  options.tls, rt_->counters(), &bulk);
  if (bulk)
    bulk_address_ = bulk->address();
  worker_ref self;
  for (const auto& d : rt_->devices().all()) {
    self.devices.push_back(d->name());
    const auto& n = d->parsed_name();
    self.task = "/job:" + *n.job + "/task:" + std::to_string(*n.task);
  }
  // Asking another worker where its collectives are takes as long as
  // that peer may be silent.
  recv_entry endpoint;
  auto peer_timeout = options.peer_timeout.count() > 0
                        ? options.peer_timeout
                        : std::chrono::milliseconds{15000};
  auto collectives
    = spawn_collectives(*sys_, self.task, bulk, tls_, peer_timeout, &endpoint);
  collectives_ = caf::actor_cast<caf::actor>(collectives);
  rt_->resources().set_collectives(make_collective_executor(collectives));
  worker_ = caf::actor_cast<caf::actor>(
    spawn_worker(*sys_, rt_, std::move(bulk), std::move(collectives),
                 std::move(endpoint), peer_links{tls_, peer_timeout}));
  self.handle = worker_;
  workers_.push_back(std::move(self));
}

std::vector<worker_ref> engine::workers() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return workers_;
}

void engine::use_workers(std::vector<worker_ref> workers) {
  std::lock_guard<std::mutex> guard{mtx_};
  workers_ = std::move(workers);
}

session_actor engine::spawn_session(session_options options) {
  std::lock_guard<std::mutex> guard{mtx_};
  session_actor hdl = spawn_master(*sys_, rt_, workers_, options);
  // An address keeps its actor's memory: forget the sessions that ended.
  sessions_.erase(std::remove_if(sessions_.begin(), sessions_.end(),
                                 [](const caf::actor_addr& addr) {
                                   return !caf::actor_cast<caf::actor>(addr);
                                 }),
                  sessions_.end());
  sessions_.push_back(hdl.address());
  return hdl;
}

} // namespace actorflow::actors
