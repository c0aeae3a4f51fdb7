#pragma once

namespace actorflow::actors::detail {

/// Whether this program's wrappers of OpenSSL's I/O calls are the ones
/// CAF's openssl module calls (see transport/openssl_error_queue.cpp). Calling
/// it also keeps the wrappers in a program linked from static libraries.
bool ssl_error_queue_cleared_before_io();

} // namespace actorflow::actors::detail
