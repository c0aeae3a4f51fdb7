// OpenSSL keeps one error queue per thread, and SSL_get_error() reads it:
// its documentation requires the queue to be empty before each TLS I/O
// call whose result it is to explain. CAF 0.17's openssl module (session.cpp)
// never clears it, and in a release build it does not drain it either.
// So one failed handshake -- a stranger sending a few bytes that are no
// ClientHello to a worker's port -- leaves errors in the queue of the
// multiplexer thread, and the next SSL_read of an established connection
// that would merely block (SSL_ERROR_WANT_READ) is taken for a failure:
// the worker drops a client that did nothing wrong. (The same bug, fixed
// the same way elsewhere: h2o#1448, stud#100, icinga2#4345.)
//
// These wrappers clear the queue and call OpenSSL's own function. Defined
// in the program, they are found before libssl's when libcaf_openssl.so
// resolves its calls (the linker exports a program's definition of a
// symbol a shared library of the link refers to), as BoringSSL does
// inside each of these functions.

#include "transport/openssl_error_queue.hpp"

#include <dlfcn.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace {

/// libssl's own definition of `name`.
template <class Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, name));
}

} // namespace

extern "C" {

int SSL_read(SSL* ssl, void* buf, int num) {
  static auto real = next<int (*)(SSL*, void*, int)>("SSL_read");
  ERR_clear_error();
  return real(ssl, buf, num);
}

int SSL_write(SSL* ssl, const void* buf, int num) {
  static auto real = next<int (*)(SSL*, const void*, int)>("SSL_write");
  ERR_clear_error();
  return real(ssl, buf, num);
}

int SSL_accept(SSL* ssl) {
  static auto real = next<int (*)(SSL*)>("SSL_accept");
  ERR_clear_error();
  return real(ssl);
}

int SSL_connect(SSL* ssl) {
  static auto real = next<int (*)(SSL*)>("SSL_connect");
  ERR_clear_error();
  return real(ssl);
}

} // extern "C"

namespace actorflow::actors::detail {

bool ssl_error_queue_cleared_before_io() {
  return ::dlsym(RTLD_DEFAULT, "SSL_read")
         == reinterpret_cast<void*>(&::SSL_read);
}

} // namespace actorflow::actors::detail
