#pragma once

#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "actorflow/actors/protocol.hpp"

namespace actorflow::actors {

/// Cancels runs from another thread, like TensorFlow's
/// CancellationManager: every run given it (`run_options::cancel`) that is
/// still in flight fails with `cancelled` and its step is aborted on every
/// worker. Once cancelled it stays so: a later run given it fails at once.
///
/// ~~~
/// actors::cancellation stop;
/// auto runner = std::thread{[&] {
///   auto st = sess.run({{}, &stop}, feeds, fetches, {}, &out);
///   // st.code() == core::errc::cancelled once stop.cancel() was called
/// }};
/// stop.cancel();
/// ~~~
///
/// It must outlive the runs given it. Thread-safe.
class cancellation {
public:
  cancellation() = default;

  cancellation(const cancellation&) = delete;
  cancellation& operator=(const cancellation&) = delete;

  /// Cancels every run given this, now and later.
  void cancel();

  /// Whether `cancel` was called.
  bool cancelled() const;

  /// Adds run `run_id` of session `hdl` (the session's part); false if
  /// already cancelled.
  bool add(const session_actor& hdl, uint64_t run_id);

  /// The run is over.
  void remove(const session_actor& hdl, uint64_t run_id);

private:
  mutable std::mutex mtx_;
  bool cancelled_ = false;
  std::vector<std::pair<session_actor, uint64_t>> runs_;
};

} // namespace actorflow::actors
