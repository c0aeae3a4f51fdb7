#include "transport/bulk_socket.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>
#include <vector>

#include <openssl/err.h>

namespace actorflow::actors {

namespace {

/// Buffers under this size are gathered into one TLS write, so that a
/// frame's prefix and header share a record.
constexpr size_t small_buffer = 16 << 10;

bool ssl_write_all(SSL* ssl, const void* buf, size_t n) {
  auto* p = static_cast<const char*>(buf);
  while (n > 0) {
    size_t written = 0;
    // OpenSSL's error queue is per thread and read by SSL_get_error: it
    // must be empty before each call (transport/openssl_error_queue.cpp).
    ERR_clear_error();
    if (SSL_write_ex(ssl, p, n, &written) != 1)
      return false;
    p += written;
    n -= written;
  }
  return true;
}

} // namespace

bulk_socket::bulk_socket(bulk_socket&& other) noexcept
  : fd_(std::exchange(other.fd_, -1)),
    ssl_(std::exchange(other.ssl_, nullptr)) {
}

bulk_socket& bulk_socket::operator=(bulk_socket&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    ssl_ = std::exchange(other.ssl_, nullptr);
  }
  return *this;
}

bulk_socket::~bulk_socket() {
  close();
}

void bulk_socket::close() noexcept {
  if (ssl_ != nullptr)
    SSL_free(ssl_);
  if (fd_ >= 0)
    ::close(fd_);
  ssl_ = nullptr;
  fd_ = -1;
}

bool bulk_socket::read_all(void* buf, size_t n) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    size_t got = 0;
    if (ssl_ != nullptr) {
      ERR_clear_error();
      if (SSL_read_ex(ssl_, p, n, &got) != 1)
        return false;
    } else {
      auto r = ::recv(fd_, p, n, 0);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return false;
      got = static_cast<size_t>(r);
    }
    p += got;
    n -= got;
  }
  return true;
}

bool bulk_socket::write_all(iovec* iov, size_t count) {
  if (ssl_ != nullptr) {
    std::vector<char> gathered;
    auto flush = [&] {
      bool ok = gathered.empty()
                || ssl_write_all(ssl_, gathered.data(), gathered.size());
      gathered.clear();
      return ok;
    };
    for (size_t i = 0; i < count; ++i) {
      const auto* base = static_cast<const char*>(iov[i].iov_base);
      if (iov[i].iov_len < small_buffer) {
        gathered.insert(gathered.end(), base, base + iov[i].iov_len);
        continue;
      }
      if (!flush() || !ssl_write_all(ssl_, base, iov[i].iov_len))
        return false;
    }
    return flush();
  }
  while (count > 0) {
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = count;
    auto w = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    // sendmsg may write part of the buffers: skip what it wrote.
    auto left = static_cast<size_t>(w);
    while (count > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      ++iov;
      --count;
    }
    if (count > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  return true;
}

} // namespace actorflow::actors
