#pragma once

// A certificate authority made at test time with the `openssl` command
// line (scripts/setup.sh installs it), in a temporary directory removed
// afterwards: the CA's certificate and the certificates it signs for the
// tasks and clients of a test cluster. EC P-256 keys, valid for a day.

#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/command.hpp"

namespace actorflow::test {

class test_pki {
public:
  /// Makes the CA; `skip_reason()` says why not where it could not.
  test_pki() {
    static int made = 0;
    dir_ = (std::filesystem::temp_directory_path()
            / ("actorflow-pki-" + std::to_string(::getpid()) + "-"
               + std::to_string(made++)))
             .string();
    std::filesystem::create_directories(dir_);
    if (!run_command("openssl version").ok()) {
      skip_ = "needs the openssl command line (scripts/setup.sh installs it)";
      return;
    }
    openssl("req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
            "-nodes -days 1 -subj /CN=actorflow-test-ca -keyout "
            + path("ca.key") + " -out " + path("ca.pem"));
  }

  ~test_pki() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  test_pki(const test_pki&) = delete;
  test_pki& operator=(const test_pki&) = delete;

  /// Why the CA or a certificate could not be made; empty if they were.
  const std::string& skip_reason() const {
    return skip_;
  }

  /// Makes `<name>.pem` and `<name>.key`, signed by the CA.
  bool sign(const std::string& name) {
    return openssl("req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
                   "-nodes -subj /CN="
                   + name + " -keyout " + path(name + ".key") + " -out "
                   + path(name + ".csr"))
           && openssl("x509 -req -days 1 -in " + path(name + ".csr") + " -CA "
                      + path("ca.pem") + " -CAkey " + path("ca.key")
                      + " -CAcreateserial -out " + path(name + ".pem"));
  }

  /// A file in the directory.
  std::string path(const std::string& file) const {
    return dir_ + "/" + file;
  }

  /// The cluster file's `tls:` section: tasks' files `<job>-<task>.*`,
  /// clients' `client.*`.
  std::string yaml() const {
    return "tls:\n  ca: " + path("ca.pem") + "\n  certificate: \""
           + path("{job}-{task}.pem") + "\"\n  key: \""
           + path("{job}-{task}.key")
           + "\"\n  client_certificate: " + path("client.pem")
           + "\n  client_key: " + path("client.key") + "\n";
  }

private:
  bool openssl(const std::string& args) {
    if (!skip_.empty())
      return false;
    auto r = run_command("openssl " + args);
    if (!r.ok())
      skip_ = "'openssl " + args + "' failed: " + r.output;
    return r.ok();
  }

  std::string dir_;
  std::string skip_;
};

} // namespace actorflow::test
