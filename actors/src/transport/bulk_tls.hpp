#pragma once

// Mutual TLS for the bulk path, with the cluster's certificates.

#include <chrono>
#include <memory>

#include <openssl/ssl.h>

#include "actorflow/actors/tls_files.hpp"
#include "actorflow/core/status.hpp"
#include "transport/bulk_socket.hpp"

namespace actorflow::actors {

/// The TLS side of the bulk path: one OpenSSL context with this task's
/// certificate and key and the cluster's CA, the same files CAF's openssl
/// module uses for BASP. Both ends of a connection present a certificate
/// and check the other's against the CA (TLS 1.3 or 1.2, AES-GCM
/// preferred where the CPU has AES instructions), so a stranger -- no
/// certificate, another CA's, or plain bytes -- fails the handshake and
/// no frame of it is ever read.
///
/// Where the kernel offers TLS offload and OpenSSL was built with it,
/// records are encrypted by the kernel (`SSL_OP_ENABLE_KTLS`); elsewhere
/// by OpenSSL in user space.
class bulk_tls {
public:
  /// How long a handshake may take before the connection is dropped: a
  /// peer that connects and stays silent holds no thread for longer.
  static constexpr std::chrono::seconds handshake_timeout{10};

  /// A context from `files`; `invalid_argument` naming the file OpenSSL
  /// refused, and why.
  static core::status make(const tls_files& files,
                           std::unique_ptr<bulk_tls>* out);

  ~bulk_tls();

  bulk_tls(const bulk_tls&) = delete;
  bulk_tls& operator=(const bulk_tls&) = delete;

  /// Runs the server's side of the handshake on the accepted `fd`: the
  /// connection in `out` (which then owns `fd`), or why the peer was
  /// refused (`fd` still the caller's).
  core::status accept(int fd, bulk_socket* out) const;

  /// Runs the client's side of the handshake on the connected `fd`.
  core::status connect(int fd, bulk_socket* out) const;

private:
  explicit bulk_tls(SSL_CTX* ctx) noexcept : ctx_(ctx) {
  }

  core::status handshake(int fd, bool server, bulk_socket* out) const;

  SSL_CTX* ctx_;
};

} // namespace actorflow::actors
