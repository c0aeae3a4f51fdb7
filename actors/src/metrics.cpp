#include "actorflow/actors/metrics.hpp"

#include <future>
#include <sstream>

#include "actorflow/actors/runtime_context.hpp"

namespace actorflow::actors {

namespace {

/// How long a scrape waits for a queue's actor to say its size.
constexpr std::chrono::milliseconds queue_wait{500};

/// `v` as a label value: backslash, quote and newline escaped.
std::string quoted(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '\\' || c == '"')
      out += '\\';
    out += c == '\n' ? std::string{"\\n"} : std::string(1, c);
  }
  return out + "\"";
}

/// Writes the HELP and TYPE lines of a metric.
void header(std::ostream& os, const char* name, const char* type,
            const char* help) {
  os << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type
     << '\n';
}

/// The number of elements in `q`, or -1 if it did not answer in time.
int64_t depth(ops::queue& q) {
  auto answer = std::make_shared<std::promise<int64_t>>();
  auto got = answer->get_future();
  q.size([answer](int64_t n) { answer->set_value(n); });
  return got.wait_for(queue_wait) == std::future_status::ready ? got.get() : -1;
}

} // namespace

void metrics::step_done(std::chrono::nanoseconds took, bool ok) noexcept {
  (ok ? steps_ok_ : steps_failed_).fetch_add(1, std::memory_order_relaxed);
  auto seconds = std::chrono::duration<double>(took).count();
  size_t b = 0;
  while (b < step_buckets.size() && seconds > step_buckets[b])
    ++b;
  buckets_[b].fetch_add(1, std::memory_order_relaxed);
  step_ns_.fetch_add(static_cast<uint64_t>(took.count()),
                     std::memory_order_relaxed);
}

metrics::peer_counters& metrics::peer(const std::string& task) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto& slot = peers_[task];
  if (!slot)
    slot = std::make_unique<peer_counters>();
  return *slot;
}

void metrics::set_bulk_link(const std::string& address, bool up) {
  std::lock_guard<std::mutex> guard{mtx_};
  bulk_links_[address] = up;
}

void metrics::set_worker_up(const std::string& task, bool up) {
  std::lock_guard<std::mutex> guard{mtx_};
  workers_up_[task] = up;
}

std::string metrics::render(const runtime_context& rt) const {
  std::ostringstream os;
  auto load = [](const std::atomic<uint64_t>& a) {
    return a.load(std::memory_order_relaxed);
  };
  header(os, "actorflow_steps_total", "counter",
         "Parts of steps this worker ran, by how they ended.");
  os << "actorflow_steps_total{result=\"ok\"} " << load(steps_ok_) << '\n'
     << "actorflow_steps_total{result=\"failed\"} " << load(steps_failed_)
     << '\n';
  header(os, "actorflow_step_duration_seconds", "histogram",
         "Time from a step's request to this worker's report of its part.");
  uint64_t cumulative = 0;
  for (size_t b = 0; b <= step_buckets.size(); ++b) {
    cumulative += load(buckets_[b]);
    os << "actorflow_step_duration_seconds_bucket{le=\"";
    if (b < step_buckets.size())
      os << step_buckets[b];
    else
      os << "+Inf";
    os << "\"} " << cumulative << '\n';
  }
  os << "actorflow_step_duration_seconds_sum " << load(step_ns_) / 1e9 << '\n'
     << "actorflow_step_duration_seconds_count " << cumulative << '\n';
  header(os, "actorflow_partition_sets", "gauge",
         "Partition sets (compiled graphs' parts) registered with the "
         "worker.");
  os << "actorflow_partition_sets "
     << partition_sets_.load(std::memory_order_relaxed) << '\n';
  {
    std::lock_guard<std::mutex> guard{mtx_};
    // One sample per peer and path, from the members `caf` and `bulk`.
    using member = std::atomic<uint64_t> peer_counters::*;
    auto per_peer = [&](const char* name, const char* help, member caf,
                        member bulk) {
      header(os, name, "counter", help);
      for (const auto& [task, c] : peers_)
        for (auto [path, m] : {std::pair{"caf", caf}, std::pair{"bulk", bulk}})
          os << name << "{peer=" << quoted(task) << ",path=\"" << path << "\"} "
             << load((*c).*m) << '\n';
    };
    per_peer("actorflow_sent_values_total",
             "Values sent to Recvs of another task, by peer and path (CAF's "
             "BASP or the bulk path).",
             &peer_counters::caf_values, &peer_counters::bulk_values);
    per_peer("actorflow_sent_bytes_total",
             "Tensor bytes of the values sent to another task, by peer and "
             "path.",
             &peer_counters::caf_bytes, &peer_counters::bulk_bytes);
    header(os, "actorflow_bulk_link_up", "gauge",
           "Whether the bulk path's connection to a worker is up (1) or "
           "failed, its values going by CAF (0).");
    for (const auto& [address, up] : bulk_links_)
      os << "actorflow_bulk_link_up{peer=" << quoted(address) << "} "
         << (up ? 1 : 0) << '\n';
    header(os, "actorflow_worker_up", "gauge",
           "Whether the worker of another task is reachable by this "
           "process's sessions (1) or gone (0), until one connects again.");
    for (const auto& [task, up] : workers_up_)
      os << "actorflow_worker_up{peer=" << quoted(task) << "} " << (up ? 1 : 0)
         << '\n';
  }
  header(os, "actorflow_bulk_received_values_total", "counter",
         "Values that arrived by the bulk path.");
  os << "actorflow_bulk_received_values_total " << load(bulk_received_values_)
     << '\n';
  header(os, "actorflow_bulk_received_bytes_total", "counter",
         "Tensor bytes that arrived by the bulk path.");
  os << "actorflow_bulk_received_bytes_total " << load(bulk_received_bytes_)
     << '\n';
  header(os, "actorflow_allocator_bytes_in_use", "gauge",
         "Bytes a device's allocator has handed out and not taken back.");
  for (const auto& d : rt.devices().all())
    os << "actorflow_allocator_bytes_in_use{device=" << quoted(d->name())
       << "} " << d->allocator(core::memory_type::device)->stats().bytes_in_use
       << '\n';
  header(os, "actorflow_allocator_peak_bytes", "gauge",
         "The most bytes a device's allocator had out at once.");
  for (const auto& d : rt.devices().all())
    os << "actorflow_allocator_peak_bytes{device=" << quoted(d->name()) << "} "
       << d->allocator(core::memory_type::device)->stats().peak_bytes_in_use
       << '\n';
  header(os, "actorflow_queue_elements", "gauge",
         "Elements in a queue of this process (FIFOQueue, "
         "RandomShuffleQueue).");
  for (const auto& [handle, q] : rt.resources().queues())
    if (auto n = depth(*q); n >= 0)
      os << "actorflow_queue_elements{queue=" << quoted(handle) << "} " << n
         << '\n';
  return os.str();
}

} // namespace actorflow::actors
