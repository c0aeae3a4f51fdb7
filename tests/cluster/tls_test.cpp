// Mutual TLS between the processes of a cluster (CAF's openssl module,
// and the bulk path's own), with a CA and certificates made at test time:
// steps run over it bit for bit, and a peer without a certificate the CA
// signed is refused -- on the worker's port and on its bulk port -- while
// the workers go on serving those that have one.

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "common/run_once.hpp"
#include "common/test_pki.hpp"
#include "common/worker_processes.hpp"

using namespace actorflow;
using core::tensor;

namespace {

/// The cluster spec a client reads from `procs`' file with `tls` as its
/// TLS section.
actors::cluster_spec client_spec(const test::worker_processes& procs,
                                 const std::string& tls) {
  actors::cluster_spec spec;
  EXPECT_TRUE(actors::cluster_spec::parse(
                "jobs:\n  worker:\n    tasks: [h:1]\n" + tls, &spec)
                .is_ok());
  spec.tasks = procs.spec().tasks;
  spec.connect_timeout = std::chrono::milliseconds{5000};
  return spec;
}

/// A TCP connection to `address` (`127.0.0.1:port`) whose reads give up
/// after 10 s; -1 if it cannot connect.
int connect_loopback(const std::string& address) {
  auto colon = address.rfind(':');
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port
    = htons(static_cast<uint16_t>(std::atoi(address.c_str() + colon + 1)));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (colon == std::string::npos
      || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

/// Whether the bulk port at `address` lets in a TLS client showing the
/// certificate `name` of `pki` (none if empty): the worker sends one byte
/// once it has checked the client's certificate. The client does not
/// check the worker's: only the worker's judgement is tested.
bool bulk_port_lets_in(const std::string& address, const test::test_pki& pki,
                       const std::string& name) {
  int fd = connect_loopback(address);
  if (fd < 0)
    return false;
  auto* ctx = SSL_CTX_new(TLS_client_method());
  if (!name.empty()) {
    SSL_CTX_use_certificate_file(ctx, pki.path(name + ".pem").c_str(),
                                 SSL_FILETYPE_PEM);
    SSL_CTX_use_PrivateKey_file(ctx, pki.path(name + ".key").c_str(),
                                SSL_FILETYPE_PEM);
  }
  auto* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  char byte = 0;
  size_t n = 0;
  bool in = SSL_connect(ssl) == 1 && SSL_read_ex(ssl, &byte, 1, &n) == 1;
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  ::close(fd);
  return in;
}

class cluster_tls : public ::testing::Test {
protected:
  void SetUp() override {
    for (auto name : {"worker-0", "worker-1", "client"})
      if (!pki.sign(name))
        break;
    if (!pki.skip_reason().empty())
      GTEST_SKIP() << pki.skip_reason();
    procs = std::make_unique<test::worker_processes>(
      ACTORFLOW_CLI,
      std::vector<test::job_tasks>{{"worker", 2, 2, 1, {}, {}, {}}},
      pki.yaml());
    ASSERT_TRUE(procs->ok()) << procs->error();
  }

  /// Connects a client with `spec`; the status of connecting.
  core::status connect(const actors::cluster_spec& spec,
                       std::unique_ptr<actors::engine>* out) {
    *out = std::make_unique<actors::engine>(actors::client_options(spec));
    ACTORFLOW_RETURN_IF_ERROR((*out)->init_status());
    return actors::connect_cluster(**out, spec);
  }

  test::test_pki pki;
  std::unique_ptr<test::worker_processes> procs;
};

} // namespace

TEST_F(cluster_tls, steps_run_over_mutual_tls_bit_for_bit) {
  std::unique_ptr<actors::engine> client;
  auto st = connect(client_spec(*procs, pki.yaml()), &client);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_TRUE(client->uses_tls());
  // The bulk path speaks TLS too, with the tasks' certificates.
  ASSERT_FALSE(procs->bulk_address(1).empty());
  EXPECT_TRUE(bulk_port_lets_in(procs->bulk_address(1), pki, "client"));
  test::expect_split_graph_and_loop(*client, 1 << 18); // 1 MiB
}

TEST_F(cluster_tls, a_peer_without_a_certificate_the_ca_signed_is_refused) {
  // A client whose certificate another CA signed, and one that speaks
  // plain TCP: each is refused in the handshake (no actor message is
  // read), and the workers serve a client with a good certificate after.
  test::test_pki stranger;
  ASSERT_TRUE(stranger.sign("client")) << stranger.skip_reason();
  std::unique_ptr<actors::engine> client;
  // (connect_cluster tries again until the connect timeout: keep it short.)
  auto refused = client_spec(*procs, stranger.yaml());
  refused.connect_timeout = std::chrono::milliseconds{200};
  auto st = connect(refused, &client);
  EXPECT_EQ(st.code(), core::errc::unavailable) << st.to_string();
  auto plain = client_spec(*procs, "");
  plain.connect_timeout = std::chrono::milliseconds{200};
  st = connect(plain, &client);
  EXPECT_EQ(st.code(), core::errc::unavailable) << st.to_string();
  EXPECT_FALSE(client->uses_tls());

  st = connect(client_spec(*procs, pki.yaml()), &client);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  graph::scope s{client->context().ops()};
  auto y = graph::add(s.sub("y").with_device("/job:worker/task:1/device:cpu:0"),
                      graph::constant(s, 1.0f), graph::constant(s, 2.0f));
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{*client};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run({}, {y.name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].scalar_value<float>(), 3.0f);
}

TEST_F(cluster_tls, strangers_on_the_bulk_port_are_refused_before_a_frame) {
  // No certificate, one that another CA signed, plain bytes (a frame
  // prefix): each fails the handshake, so the worker reads no frame of
  // theirs; then a value of 1 MiB goes between the workers as before.
  const auto& address = procs->bulk_address(1);
  ASSERT_FALSE(address.empty());
  EXPECT_FALSE(bulk_port_lets_in(address, pki, ""));
  test::test_pki stranger;
  ASSERT_TRUE(stranger.sign("worker-1")) << stranger.skip_reason();
  EXPECT_FALSE(bulk_port_lets_in(address, stranger, "worker-1"));
  int fd = connect_loopback(address);
  ASSERT_GE(fd, 0);
  const uint32_t prefix[4] = {0x4b424641, 2, 4, 0}; // "AFBK", 2 words, 4 B
  ASSERT_EQ(::write(fd, prefix, sizeof(prefix)),
            static_cast<ssize_t>(sizeof(prefix)));
  // The worker closes the connection (after a TLS alert, if any): the
  // reads end, and not for the 10 s timeout.
  char buf[256];
  ssize_t r;
  while ((r = ::recv(fd, buf, sizeof(buf), 0)) > 0) {
  }
  EXPECT_TRUE(r == 0 || errno == ECONNRESET) << std::strerror(errno);
  ::close(fd);
  // The one with the CA's certificate is let in, and steps run.
  EXPECT_TRUE(bulk_port_lets_in(address, pki, "client"));
  std::unique_ptr<actors::engine> client;
  auto st = connect(client_spec(*procs, pki.yaml()), &client);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  test::expect_split_graph_and_loop(*client, 1 << 18);
}

TEST(cluster_tls_files, missing_files_are_an_error_never_plain_tcp) {
  actors::engine_options o;
  o.network = true;
  o.tls.ca = "/nonexistent/ca.pem";
  o.tls.certificate = "/nonexistent/me.pem";
  o.tls.key = "/nonexistent/me.key";
  actors::engine e{o};
  EXPECT_EQ(e.init_status().code(), core::errc::not_found)
    << e.init_status().to_string();
  EXPECT_NE(e.init_status().message().find("/nonexistent/ca.pem"),
            std::string::npos);
  EXPECT_FALSE(e.system().has_middleman());
  uint16_t port = 0;
  EXPECT_FALSE(actors::serve_worker(e, "127.0.0.1", 0, &port).is_ok());
  actors::cluster_spec spec;
  auto st = actors::cluster_spec::parse(
    "jobs:\n  worker:\n    tasks: [h:1]\ntls:\n  ca: ca.pem\n", &spec);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("tls.certificate is missing"), std::string::npos)
    << st.to_string();
}

TEST(cluster_tls_files, a_key_that_is_not_the_certificates_is_an_error) {
  // Files that exist but that OpenSSL refuses together: the bulk path's
  // TLS says which, and the engine starts no listener.
  test::test_pki pki;
  if (!pki.sign("worker-0") || !pki.sign("worker-1"))
    GTEST_SKIP() << pki.skip_reason();
  actors::engine_options o;
  o.network = true;
  o.host = "127.0.0.1";
  o.tls.ca = pki.path("ca.pem");
  o.tls.certificate = pki.path("worker-0.pem");
  o.tls.key = pki.path("worker-1.key");
  actors::engine e{o};
  EXPECT_EQ(e.init_status().code(), core::errc::invalid_argument)
    << e.init_status().to_string();
  EXPECT_NE(e.init_status().message().find(o.tls.key), std::string::npos)
    << e.init_status().to_string();
  EXPECT_TRUE(e.bulk_address().empty());
}
