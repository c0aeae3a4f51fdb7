#pragma once

// The bulk path between workers: large tensors beside CAF's BASP.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "actorflow/actors/metrics.hpp"
#include "actorflow/actors/tls_files.hpp"
#include "actorflow/core/status.hpp"
#include "runtime_messages.hpp"
#include "transport/bulk_socket.hpp"
#include "transport/bulk_tls.hpp"

namespace actorflow::actors {

/// Moves large tensors between the workers of a cluster over one TCP
/// connection per (sender, receiver) pair, the way TensorFlow added RDMA
/// beside gRPC: CAF's BASP copies a message several times and allocates
/// fresh buffers for it (0.4 GB/s for 64 MiB on loopback, against 2.7 for
/// raw TCP; docs/performance.md), while here the sender writes the
/// tensor's bytes straight from its buffer and the receiver reads them
/// straight into the new tensor.
///
/// The endpoint (`address()`) and the key of each Recv travel in the Recv
/// tables, i.e. through CAF; small values, control messages and values of
/// workers without an endpoint stay on CAF. A frame on a connection is a
/// 16-byte prefix (magic, header words, payload bytes), a Cap'n Proto
/// header (wire.capnp, BulkValue: the value message without its tensor's
/// bytes, and the Recv's key), then the tensor's bytes. A receiver checks
/// every field before it allocates; a malformed frame closes its
/// connection (the worker keeps serving), and a sender whose connection
/// fails sends that value and every later one through CAF instead.
///
/// When the cluster uses TLS, so does every connection of the path: mutual
/// authentication with the cluster's certificates (bulk_tls), so a peer
/// without a certificate the CA signed is refused before any frame of it
/// is read.
///
/// One thread accepts, one reads each incoming connection (and runs its
/// TLS handshake) and one writes each outgoing one; TCP's own window is
/// the flow control.
class bulk_transport {
public:
  /// Listens on `host` at a port the OS picks; values of at least
  /// `min_bytes` tensor bytes are to take the path, over TLS with `tls`'
  /// files if it names them.
  static core::status start(const std::string& host, size_t min_bytes,
                            const tls_files& tls,
                            std::shared_ptr<metrics> counters,
                            std::shared_ptr<bulk_transport>* out);

  /// Closes every connection and joins the threads; values still queued
  /// are dropped (their steps are ending with the worker).
  ~bulk_transport();

  bulk_transport(const bulk_transport&) = delete;
  bulk_transport& operator=(const bulk_transport&) = delete;

  /// `host:port`, as other workers connect to it.
  const std::string& address() const noexcept {
    return address_;
  }

  /// Delivers the values that arrive for the returned key to `recv`.
  uint64_t add_route(value_sink recv);

  /// Forgets a key: values that still arrive for it are dropped.
  void remove_route(uint64_t key);

  /// Whether `m` goes over the bulk path: a live numeric tensor of at
  /// least `min_bytes`.
  bool wants(const value_msg& m) const;

  /// Queues `m` for the Recv `key` at the worker listening on `address`;
  /// sends it to `fallback` through CAF if that connection fails.
  void send(const std::string& address, uint64_t key, value_msg&& m,
            const value_sink& fallback);

private:
  struct link;

  bulk_transport() = default;

  void accept_loop();

  void read_loop(int fd);

  /// Reads frames from `sock` until it closes or sends a malformed one.
  void read_frames(bulk_socket& sock);

  value_sink route(uint64_t key);

  int listener_ = -1;
  std::string address_;
  size_t min_bytes_ = 0;
  std::unique_ptr<bulk_tls> tls_; ///< Null: plain TCP.
  std::shared_ptr<metrics> counters_;
  std::thread acceptor_;

  std::mutex mtx_; ///< Guards the members below.
  bool stopping_ = false;
  std::vector<int> reader_fds_;
  std::vector<std::thread> readers_;
  std::unordered_map<std::string, std::unique_ptr<link>> links_;
  std::unordered_map<uint64_t, value_sink> routes_;
  uint64_t next_key_ = 1;
};

} // namespace actorflow::actors
