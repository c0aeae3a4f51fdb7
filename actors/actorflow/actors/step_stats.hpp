#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/core/status.hpp"

namespace actorflow::actors {

/// How much a run records of itself, like TensorFlow's
/// `RunOptions::TraceLevel`.
enum class trace_level : uint8_t {
  none, ///< Nothing: the runtime pays one branch per firing.
  full, ///< Every node firing and the step's transfers and memory.
};

/// One firing of one node in a step, like TensorFlow's `NodeExecStats`.
///
/// Only live firings are recorded: a node skipped because its input was
/// dead (an untaken branch) ran nothing.
struct node_exec_stats {
  std::string node;
  std::string op;
  /// The loop frame the node belongs to ("" for the root frame), the id
  /// of the frame instance (0 for the root) and the iteration.
  std::string frame_name;
  uint64_t frame = 0;
  int64_t iter = 0;
  /// Microseconds since the Unix epoch (every process of a machine shares
  /// the clock). An offloaded kernel's firing is its compute on the thread
  /// that ran it; an asynchronous kernel's runs from its launch until its
  /// node hears that it finished.
  int64_t start_us = 0;
  int64_t end_us = 0;
  /// Bytes of the tensors the kernel produced; for a Send or a Recv, of the
  /// tensor it moved.
  int64_t output_bytes = 0;
  /// Send and Recv: the rendezvous key that pairs them (`tensor_name`).
  std::string tensor_name;
};

/// What one device did in a step, like TensorFlow's `DeviceStepStats`.
struct device_step_stats {
  std::string device;
  /// The task of the process that owns the device (`/job:J/task:T`).
  std::string worker;
  std::vector<node_exec_stats> nodes;
  /// The device allocator's bytes in use when the worker's part of the
  /// step ended, and the most it ever had in use.
  int64_t bytes_in_use = 0;
  int64_t peak_bytes = 0;
};

/// What a step did, like TensorFlow's `StepStats`, gathered from every
/// worker that took part.
struct step_stats {
  /// The master's step id and when it sent the step out and had every
  /// report back (microseconds since the Unix epoch).
  uint64_t step = 0;
  int64_t start_us = 0;
  int64_t end_us = 0;
  std::vector<device_step_stats> devices;
  /// Values sent from one partition to another (Send to Recv), and those
  /// of them that went to another process, with their tensor bytes.
  int64_t partition_messages = 0;
  int64_t partition_bytes = 0;
  int64_t process_messages = 0;
  int64_t process_bytes = 0;
};

/// Microseconds since the Unix epoch, the clock of `node_exec_stats`.
int64_t now_micros() noexcept;

/// Watches every step of a session, like Taskflow's `ObserverInterface`:
/// give one to `session_options::observer` and each step is traced and
/// handed to `on_step` once every worker has reported, whether the run
/// asked for metadata or not.
///
/// ~~~
/// struct slowest : actors::step_observer {
///   void on_step(const actors::step_stats& s, const core::status&) override {
///     worst = std::max(worst, s.end_us - s.start_us);
///   }
///   std::atomic<int64_t> worst{0};
/// };
/// ~~~
class step_observer {
public:
  virtual ~step_observer();

  /// Called in the session's actor when a step ends, with what it
  /// recorded and how the step ended (the run's status). Return quickly
  /// and do not block: the session's next step waits.
  virtual void on_step(const step_stats& stats, const core::status& result) = 0;
};

} // namespace actorflow::actors
