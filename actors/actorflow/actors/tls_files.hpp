#pragma once

#include <string>

namespace actorflow::actors {

/// The PEM files of mutual TLS between the processes of a cluster (CAF's
/// openssl module and the bulk path): this process's certificate and key,
/// and the CA whose signature a peer's certificate must carry.
struct tls_files {
  std::string ca;
  std::string certificate;
  std::string key;
  /// The key's passphrase, if it has one.
  std::string passphrase;

  /// Whether TLS is asked for (a certificate is named).
  bool enabled() const noexcept {
    return !certificate.empty();
  }
};

} // namespace actorflow::actors
