#pragma once

// One connection of the bulk path, plain TCP or TLS over it.

#include <sys/uio.h>

#include <cstddef>

#include <openssl/ssl.h>

namespace actorflow::actors {

/// A connected socket of the bulk path that reads and writes whole
/// buffers: straight on the socket, or through the TLS session over it
/// once its handshake is done (bulk_tls). Owns both and closes them.
///
/// `read_all` and `write_all` block; shutting the descriptor down from
/// another thread makes them fail, which is how the transport stops a
/// connection's thread.
class bulk_socket {
public:
  bulk_socket() = default;

  /// Takes `fd` and, if not null, the TLS session `ssl` over it.
  explicit bulk_socket(int fd, SSL* ssl = nullptr) noexcept
    : fd_(fd), ssl_(ssl) {
  }

  bulk_socket(bulk_socket&& other) noexcept;

  bulk_socket& operator=(bulk_socket&& other) noexcept;

  ~bulk_socket();

  /// Whether it holds a socket.
  bool valid() const noexcept {
    return fd_ >= 0;
  }

  int fd() const noexcept {
    return fd_;
  }

  /// Whether the bytes go through TLS.
  bool tls() const noexcept {
    return ssl_ != nullptr;
  }

  /// Reads exactly `n` bytes; false at the end of the stream or an error.
  bool read_all(void* buf, size_t n);

  /// Writes the `count` buffers of `iov` whole and in order (it may change
  /// `iov`); false on an error.
  bool write_all(iovec* iov, size_t count);

private:
  void close() noexcept;

  int fd_ = -1;
  SSL* ssl_ = nullptr;
};

} // namespace actorflow::actors
