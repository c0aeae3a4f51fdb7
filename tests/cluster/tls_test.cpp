// Mutual TLS between the processes of a cluster (CAF's openssl module),
// with a CA and certificates made at test time: steps run over it bit for
// bit, and a peer without a certificate the CA signed is refused while the
// workers go on serving those that have one.

#include <gtest/gtest.h>

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
  EXPECT_TRUE(procs->bulk_address(0).empty());         // no plain bulk path
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
  graph::scope s{client->context().ops};
  auto y = graph::add(s.sub("y").with_device("/job:worker/task:1/device:cpu:0"),
                      graph::constant(s, 1.0f), graph::constant(s, 2.0f));
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{*client};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run({}, {y.name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].scalar_value<float>(), 3.0f);
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
