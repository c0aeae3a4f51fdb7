// Graphs over several processes: a client and two real `actorflow worker`
// processes on loopback ports the OS picks. Each graph runs once in one
// process (devices cpu:0 and cpu:1) and once over the two workers (task 0
// and task 1), and the results must be the same bits: the cluster runs the
// same partitions, Send/Recv pairs and control loops, only the transport
// of the values between the two sides differs.

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <future>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <gtest/gtest.h>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/functional_ops.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/queue.hpp"
#include "cluster_fixture.hpp"
#include "common/free_port.hpp"
#include "common/golden.hpp"
#include "common/loop_cases.hpp"
#include "common/tcp_links.hpp"
#include "common/trace_checks.hpp"
#include "common/worker_idle.hpp"
#include "transport/worker_protocol.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using namespace actorflow::test; // the fixture: cluster, built, task0, ...

TEST_F(cluster, the_workers_list_their_devices) {
  auto workers = client_->workers();
  ASSERT_EQ(workers.size(), 2u);
  EXPECT_EQ(workers[0].task, "/job:worker/task:0");
  EXPECT_EQ(workers[1].devices,
            (std::vector<std::string>{"/job:worker/task:1/device:cpu:0",
                                      "/job:worker/task:1/device:cpu:1"}));
}

TEST_F(cluster, figure_one_split_over_two_processes) {
  // relu(W x + b): W and b on one side, the product and relu on the other.
  expect_same([](graph::scope& s, const std::string& a, const std::string& b) {
    auto x = graph::placeholder(s.sub("x"), dtype::float32, {64, 32});
    auto w = graph::constant(s.sub("W").with_device(a), iota({48, 64}, 0.03f));
    auto bias = graph::constant(s.sub("b").with_device(a), iota({48, 1}, 0.1f));
    auto y = graph::relu(
      s.sub("relu").with_device(b),
      graph::add(s.sub("add").with_device(b),
                 graph::matmul(s.sub("matmul").with_device(b), w, x), bias));
    return built{{y.name()}, {{x.name(), iota({64, 32}, 0.05f)}}, {}, {}};
  });
}

TEST_F(cluster, a_loop_whose_body_is_on_the_other_process) {
  // The halving loop of control_flow_test, with TensorFlow's own results:
  // the condition and counter on task 0, the body and an inner loop on
  // task 1; the predicate crosses the network once per iteration.
  auto golden = test::load_golden("control_flow.txt");
  auto build = [](graph::scope& s, const std::string& a, const std::string& b,
                  int64_t steps) {
    auto here = s.with_device(a);
    auto n = graph::constant(here.sub("n"), steps, dtype::int64);
    auto outs = test::halving_loop(here, n, b);
    return built{{outs[1].name()}, {}, {}, {}};
  };
  for (int64_t steps : {0, 1, 20}) {
    auto results = run_on(
      *client_,
      [&](graph::scope& s, const std::string& a, const std::string& b) {
        return build(s, a, b, steps);
      },
      task0, task1, 1);
    ASSERT_EQ(results.size(), 1u);
    auto key = "halving_n" + std::to_string(steps);
    EXPECT_TRUE(same_bits(results[0][0], golden.at(key)))
      << key << ": " << results[0][0].debug_string();
  }
}

TEST_F(cluster, workers_that_exchange_values_connect_to_each_other) {
  // Task 1's Recv reaches task 0 by way of the client: without a
  // connection of their own, CAF would send x to task 1 through the
  // client's process (two network hops, the client woken on the way).
  expect_same([](graph::scope& s, const std::string& a, const std::string& b) {
    auto x = graph::placeholder(s.sub("x").with_device(a), dtype::float32, {4});
    auto y = graph::neg(s.sub("y").with_device(b),
                        graph::tanh(s.sub("t").with_device(a), x));
    return built{{y.name()}, {{x.name(), iota({4}, 0.5f)}}, {}, {}};
  });
  actors::cluster_spec spec;
  ASSERT_TRUE(procs_->client_spec(&spec).is_ok());
  EXPECT_TRUE(test::connected_to_port(procs_->pid(0), spec.tasks[1].port)
              || test::connected_to_port(procs_->pid(1), spec.tasks[0].port))
    << "no TCP connection between the worker processes";
}

TEST_F(cluster, a_peer_a_worker_cannot_reach_costs_no_step) {
  // A port nothing listens on (bound, then closed): the worker answers the
  // link, refused, with done -- the values would keep the longer way --
  // and a step over both workers runs as before.
  auto port = test::free_port();
  ASSERT_GT(port, 0);
  actors::peer_table nowhere{
    actors::peer_entry{"/job:worker/task:9", nullptr, "127.0.0.1", port}};
  caf::scoped_actor self{client_->system()};
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool done = false;
    self
      ->request(actors::worker_of(client_->workers()[0]),
                std::chrono::seconds{30}, actors::link_atom::value, nowhere)
      .receive([&](actors::done_atom) { done = true; },
               [&](caf::error& err) {
                 ADD_FAILURE() << client_->system().render(err);
               });
    EXPECT_TRUE(done) << "attempt " << attempt;
  }
  expect_same([](graph::scope& s, const std::string& a, const std::string& b) {
    auto x = graph::placeholder(s.sub("x").with_device(a), dtype::float32, {4});
    auto y = graph::neg(s.sub("y").with_device(b), x);
    return built{{y.name()}, {{x.name(), iota({4}, 0.25f)}}, {}, {}};
  });
}

TEST_F(cluster, a_cond_with_its_branches_on_the_other_process) {
  expect_same([](graph::scope& s, const std::string& a, const std::string& b) {
    auto here = s.with_device(a);
    auto x = graph::placeholder(here.sub("x"), dtype::float32, {8});
    auto pred = graph::greater(here, graph::reduce_sum(here, x, {0}),
                               graph::constant(here, 0.0f));
    auto out = graph::cond(
      here, pred,
      [&](const graph::scope& t) {
        auto far = t.with_device(b);
        return std::vector<graph::output>{graph::mul(far, x, x)};
      },
      [&](const graph::scope& f) {
        auto far = f.with_device(b);
        return std::vector<graph::output>{graph::sub(far, x, x)};
      });
    return built{{out[0].name()}, {{x.name(), iota({8}, 0.5f)}}, {}, {}};
  });
}

TEST_F(cluster, the_gradient_of_a_loop_split_over_processes) {
  // d/dx of sum(x * w^k) after k iterations, the multiplication on the
  // other process: the backward loop crosses the network too.
  expect_same([](graph::scope& s, const std::string& a, const std::string& b) {
    auto here = s.with_device(a);
    auto x = graph::placeholder(here.sub("x"), dtype::float64, {4});
    auto w = graph::constant(here.sub("w"), 1.25, dtype::float64);
    auto outs = graph::while_loop(
      here,
      [&](const graph::scope& cs, const std::vector<graph::output>& v) {
        return graph::less(cs, v[0], graph::constant(cs, 5.0));
      },
      [&](const graph::scope& body, const std::vector<graph::output>& v) {
        auto far = body.with_device(b);
        return std::vector<graph::output>{
          graph::add(body, v[0], graph::constant(body, 1.0)),
          graph::mul(far, v[1], w)};
      },
      {graph::constant(here, 0.0), x});
    if (outs.size() != 2)
      return built{};
    auto loss = graph::reduce_sum(here, graph::square(here, outs[1]), {0});
    auto grads = graph::gradients(here, {loss}, {x});
    auto values = std::vector<double>{0.5, -1.0, 2.0, 0.25};
    return built{{loss.name(), grads[0]->name()},
                 {{x.name(), tensor::from_vector<double>({4}, values)}},
                 {},
                 {}};
  });
}

TEST_F(cluster, a_scan_whose_body_and_arrays_are_on_two_processes) {
  // h_t = tanh(w * h_{t-1} + x_t) by scan: the sequence's and the results'
  // TensorArrays live on task 0, the body computes on task 1, so each
  // element crosses twice an iteration and the handles stay home; the
  // gradient's arrays and loop too.
  expect_same([](graph::scope& s, const std::string& a, const std::string& b) {
    auto here = s.with_device(a);
    auto x = graph::placeholder(here.sub("x"), dtype::float64, {-1, 4});
    auto w = graph::constant(
      here.sub("w"), tensor::from_vector<double>({4}, {0.5, -0.25, 1.5, 0.75}));
    auto hs = graph::scan(
      here,
      [&](const graph::scope& body, const std::vector<graph::output>& h,
          const std::vector<graph::output>& r) {
        auto far = body.with_device(b);
        return std::vector<graph::output>{
          graph::tanh(far, graph::add(far, graph::mul(far, w, h[0]), r[0]))};
      },
      {x}, {graph::zeros(here, {4}, dtype::float64)});
    if (hs.size() != 1)
      return built{};
    auto loss = graph::reduce_sum(here, graph::square(here, hs[0]), {0, 1});
    auto grads = graph::gradients(here, {loss}, {x});
    std::vector<double> xv;
    for (int i = 0; i < 24; ++i)
      xv.push_back(std::sin(0.37 * i));
    return built{{hs[0].name(), grads[0]->name()},
                 {{x.name(), tensor::from_vector<double>({6, 4}, xv)}},
                 {},
                 {}};
  });
}

TEST_F(cluster, a_variable_on_one_process_updated_from_the_other) {
  // v lives on task 0 with its AssignAdd (a reference edge keeps them
  // together); the increment is computed on task 1 from v's value.
  expect_same(
    [](graph::scope& s, const std::string& a, const std::string& b) {
      auto v = graph::variable(s.sub("v").with_device(a),
                               graph::constant(s, iota({16}, 0.25f)));
      auto far = s.with_device(b);
      auto step
        = graph::mul(far, graph::identity(far, v), graph::constant(far, 0.5f));
      auto update = graph::assign_add(s.sub("update"), v, step);
      return built{{update.name()}, {}, {s.initializer().name}, {}};
    },
    4);
}

TEST_F(cluster, a_device_no_worker_has_is_a_clear_error) {
  graph::scope s{client_->context().ops()};
  auto x = graph::constant(s.sub("x").with_device("/job:worker/task:7"), 1.0f);
  auto y = graph::identity(s.sub("y"), x);
  actors::session sess{*client_};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto st = sess.run({}, {y.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  EXPECT_NE(st.message().find("no device matches"), std::string::npos)
    << st.to_string();
  EXPECT_EQ(st.node(), "x/Const");
}

TEST_F(cluster, garbage_on_a_workers_port_leaves_it_serving) {
  // Bytes that are no BASP handshake, then a truncated header: the worker
  // drops that connection and goes on serving the client.
  const std::string truncated{"\x00\x00\x00\x07"
                              "abc",
                              7};
  for (const auto& garbage : {std::string(64, '\xff'), truncated}) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(procs_->spec().tasks[1].port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)),
              0);
    ASSERT_EQ(::write(fd, garbage.data(), garbage.size()),
              static_cast<ssize_t>(garbage.size()));
    ::close(fd);
  }
  expect_same(
    [](graph::scope& s, const std::string& a, const std::string& b) {
      auto x = graph::constant(s.sub("x").with_device(a), iota({4}, 1.0f));
      auto y = graph::mul(s.sub("y").with_device(b), x, x);
      return built{{y.name()}, {}, {}, {}};
    },
    1);
}

TEST(cluster_links, only_workers_that_exchange_values_connect) {
  // Tasks 1 and 2 each send a value to task 0 and none to each other:
  // they connect to task 0 alone. Connections (and their heartbeats) grow
  // with the plan's edges, not with the square of its workers.
  test::worker_processes procs{ACTORFLOW_CLI, 3, 1};
  ASSERT_TRUE(procs.ok()) << procs.error();
  actors::cluster_spec spec;
  ASSERT_TRUE(procs.client_spec(&spec).is_ok());
  auto o = actors::client_options(spec);
  o.num_cpu_devices = 1;
  actors::engine client{o};
  ASSERT_TRUE(client.init_status().is_ok());
  ASSERT_TRUE(actors::connect_cluster(client, spec).is_ok());
  graph::scope s;
  auto on = [&](int t) {
    return s.with_device("/job:worker/task:" + std::to_string(t)
                         + "/device:cpu:0");
  };
  auto x = graph::placeholder(on(0).sub("x"), dtype::float32, {2});
  auto y1 = graph::neg(on(1).sub("y1"), x);
  auto y2 = graph::tanh(on(2).sub("y2"), x);
  auto sum = graph::add(on(0).sub("sum"), y1, y2);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{client};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto st = sess.run({{x.name(), tensor::from_vector<float>({2}, {0.5f, -1})}},
                     {sum.name()}, {}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_NEAR(out[0].data<float>()[0], -0.5f + std::tanh(0.5f), 1e-6f);
  auto linked = [&](size_t a, size_t b) {
    return test::connected_to_port(procs.pid(a), spec.tasks[b].port)
           || test::connected_to_port(procs.pid(b), spec.tasks[a].port);
  };
  EXPECT_TRUE(linked(0, 1));
  EXPECT_TRUE(linked(0, 2));
  EXPECT_FALSE(linked(1, 2)) << "tasks 1 and 2 exchange no values";
}

TEST(cluster_links, a_later_peer_that_never_connects_is_named) {
  // Task 0 waits for task 1, listed after it, to connect and introduce
  // itself (join_peers); nothing does, and the error says who to start.
  actors::cluster_spec spec;
  ASSERT_TRUE(actors::cluster_spec::parse("jobs:\n  worker:\n    tasks: "
                                          "[127.0.0.1:0, 127.0.0.1:1]\n",
                                          &spec)
                .is_ok());
  spec.connect_timeout = std::chrono::milliseconds{300};
  actors::engine e{actors::worker_options(spec.tasks[0], spec)};
  ASSERT_TRUE(e.init_status().is_ok());
  actors::cluster_spec peers = spec;
  peers.tasks.erase(peers.tasks.begin());
  auto st = actors::join_peers(e, peers, spec.tasks[0]);
  EXPECT_EQ(st.code(), core::errc::unavailable);
  EXPECT_NE(st.message().find("/job:worker/task:1 did not connect to "
                              "/job:worker/task:0 within 300 ms"),
            std::string::npos)
    << st.to_string();
}

TEST(cluster_spec, the_example_files_load) {
  for (const char* name :
       {"local-2workers.yaml", "ps-2workers.yaml", "tls-2workers.yaml"}) {
    actors::cluster_spec spec;
    auto st = actors::cluster_spec::load(
      std::string{ACTORFLOW_CONFIGS_DIR} + "/" + name, &spec);
    EXPECT_TRUE(st.is_ok()) << name << ": " << st.to_string();
    EXPECT_GE(spec.tasks.size(), 2u) << name;
    EXPECT_EQ(spec.peer_timeout, std::chrono::milliseconds{15000}) << name;
  }
  // The TLS file's paths are found beside it.
  actors::cluster_spec spec;
  ASSERT_TRUE(actors::cluster_spec::load(std::string{ACTORFLOW_CONFIGS_DIR}
                                           + "/tls-2workers.yaml",
                                         &spec)
                .is_ok());
  auto opts = actors::worker_options(spec.tasks[1], spec);
  EXPECT_EQ(opts.tls.ca, std::string{ACTORFLOW_CONFIGS_DIR} + "/certs/ca.pem");
  EXPECT_EQ(opts.tls.certificate,
            std::string{ACTORFLOW_CONFIGS_DIR} + "/certs/worker-1.pem");
  EXPECT_EQ(actors::client_options(spec).tls.key,
            std::string{ACTORFLOW_CONFIGS_DIR} + "/certs/client.key");
}

TEST(cluster_spec, files_are_checked) {
  actors::cluster_spec spec;
  EXPECT_TRUE(actors::cluster_spec::parse(
                "jobs:\n  ps:\n    tasks: [a:1]\n  worker:\n    cpus: 2\n"
                "    tasks: [b:2, c:3]\ntimeouts:\n  connect_ms: 500\n",
                &spec)
                .is_ok());
  ASSERT_EQ(spec.tasks.size(), 3u);
  ASSERT_NE(spec.find("worker:1"), nullptr);
  EXPECT_EQ(spec.find("worker:1")->host, "c");
  EXPECT_EQ(spec.find("/job:worker/task:1")->port, 3);
  EXPECT_EQ(spec.find("worker:1")->cpus, 2);
  EXPECT_EQ(spec.find("worker:2"), nullptr);
  EXPECT_EQ(spec.connect_timeout.count(), 500);
  EXPECT_EQ(spec.find("worker:1")->bind_host(), "c");
  EXPECT_EQ(spec.find("worker:1")->bind_port(), 3);
  // Where each task listens, when the others reach it elsewhere.
  ASSERT_TRUE(actors::cluster_spec::parse("jobs:\n  ps:\n    tasks: [a:1]\n"
                                          "    listen: [0.0.0.0:7]\n",
                                          &spec)
                .is_ok());
  EXPECT_EQ(spec.tasks[0].host, "a");
  EXPECT_EQ(spec.tasks[0].bind_host(), "0.0.0.0");
  EXPECT_EQ(spec.tasks[0].bind_port(), 7);
  EXPECT_EQ(actors::worker_options(spec.tasks[0], spec).host, "0.0.0.0");
  for (const char* bad :
       {"", "jobs: 3", "jobs:\n  w:\n    tasks: []\n",
        "jobs:\n  w:\n    tasks: [nohost]\n",
        "jobs:\n  w:\n    tasks: [h:70000]\n",
        "jobs:\n  'a/b':\n    tasks: [h:1]\n", "jobs: [unclosed",
        "jobs:\n  w:\n    tasks: [h:1]\ntimeouts:\n  heartbeat_ms: -1\n",
        "jobs:\n  w:\n    tasks: [h:1]\ntimeouts:\n  heartbeat_ms: 100\n"
        "  peer_ms: 150\n",
        "jobs:\n  w:\n    tasks: [h:1, h:2]\n    listen: [h:3]\n",
        "jobs:\n  w:\n    tasks: [h:1]\n    listen: h:3\n",
        "jobs:\n  w:\n    tasks: [h:1]\n    listen: [h]\n",
        "jobs:\n  a:\n    tasks: [h:1]\n  b:\n    tasks: [h:2, h:1]\n"}) {
    auto st = actors::cluster_spec::parse(bad, &spec);
    EXPECT_EQ(st.code(), core::errc::invalid_argument) << bad;
  }
  // Two tasks at one address: both named.
  auto st = actors::cluster_spec::parse(
    "jobs:\n  a:\n    tasks: [h:1]\n  b:\n    tasks: [h:2, h:1]\n", &spec);
  EXPECT_NE(st.message().find("/job:a/task:0 and /job:b/task:1 both listen "
                              "at h:1"),
            std::string::npos)
    << st.to_string();
  // A peer timeout alone gets a heartbeat of a third of it; by default
  // they are 5 s and 15 s.
  ASSERT_TRUE(
    actors::cluster_spec::parse(
      "jobs:\n  w:\n    tasks: [h:1]\ntimeouts:\n  peer_ms: 6000\n", &spec)
      .is_ok());
  EXPECT_EQ(spec.heartbeat, std::chrono::milliseconds{2000});
  ASSERT_TRUE(
    actors::cluster_spec::parse("jobs:\n  w:\n    tasks: [h:1]\n", &spec)
      .is_ok());
  EXPECT_EQ(spec.heartbeat, std::chrono::milliseconds{5000});
  EXPECT_EQ(spec.peer_timeout, std::chrono::milliseconds{15000});
}

namespace {

/// Writes `bytes` to a fresh connection to `address` (`host:port`) and
/// closes it.
void send_raw(const std::string& address, const std::string& bytes) {
  auto colon = address.rfind(':');
  ASSERT_NE(colon, std::string::npos) << address;
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port
    = htons(static_cast<uint16_t>(std::atoi(address.c_str() + colon + 1)));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()),
            static_cast<ssize_t>(bytes.size()));
  ::close(fd);
}

/// A bulk frame prefix: magic, header words, payload bytes.
std::string bulk_prefix(uint32_t magic, uint32_t words, uint64_t payload) {
  std::string out(16, '\0');
  std::memcpy(out.data(), &magic, 4);
  std::memcpy(out.data() + 4, &words, 4);
  std::memcpy(out.data() + 8, &payload, 8);
  return out;
}

/// A 1 MiB tensor from task 0 to task 1, through the bulk path.
built large_transfer(graph::scope& s, const std::string& a,
                     const std::string& b) {
  auto x = graph::constant(s.sub("x").with_device(a), iota({512, 512}, 0.5f));
  auto y = graph::mul(s.sub("y").with_device(b), x, x);
  return built{{y.name()}, {}, {}, {}};
}

} // namespace

TEST_F(cluster, large_tensors_take_the_bulk_path_bit_for_bit) {
  ASSERT_FALSE(procs_->bulk_address(1).empty());
  expect_same(large_transfer, 2);
}

TEST_F(cluster, malformed_bulk_frames_leave_the_worker_serving) {
  // (Under TLS each is refused earlier, in the handshake: tls_test.)
  constexpr uint32_t magic = 0x4b424641;
  const auto& address = procs_->bulk_address(1);
  // A wrong magic; a header and a payload over the limits; a prefix cut
  // short; a header of bit noise; a header that is a valid message of
  // zeros (no tensor) with a payload; a payload cut short.
  std::vector<std::string> frames{
    bulk_prefix(0x12345678, 2, 0),
    bulk_prefix(magic, 1u << 20, 0),
    bulk_prefix(magic, 2, uint64_t{1} << 40),
    bulk_prefix(magic, 2, 0).substr(0, 9),
    bulk_prefix(magic, 4, 8) + std::string(32, '\xa5') + std::string(8, '\0'),
    bulk_prefix(magic, 2, 4) + std::string(16, '\0') + std::string(4, '\0'),
  };
  for (const auto& f : frames)
    send_raw(address, f);
  expect_same(large_transfer, 1);
}

TEST_F(cluster, a_peer_of_another_wire_version_is_refused_at_the_handshake) {
  if (tls())
    GTEST_SKIP()
      << "the peers speak plain TCP; TLS refuses them earlier (tls_test)";
  // A CAF peer that names another wire version (or none: a plain CAF
  // application) is refused before any message; the worker serves on.
  for (const char* id : {"actorflow-wire-0", "generic-caf-app"}) {
    caf::actor_system_config cfg;
    actors::engine::add_message_types(cfg);
    cfg.set("middleman.app-identifiers", std::vector<std::string>{id});
    cfg.load<caf::io::middleman>();
    caf::actor_system sys{cfg};
    const auto& task = procs_->spec().tasks[0];
    auto worker = sys.middleman().remote_actor<actors::worker_actor>(task.host,
                                                                     task.port);
    ASSERT_FALSE(worker) << id;
    EXPECT_NE(sys.render(worker.error()).find("incompatible_application_ids"),
              std::string::npos)
      << sys.render(worker.error());
  }
  expect_same(large_transfer, 1);
}

TEST_F(cluster, the_first_error_aborts_the_step_on_the_other_worker) {
  // x fails its check on task 0 while task 1's part waits on an empty
  // queue: the master tells task 1 to abort, its dequeue is cancelled
  // (nothing taken is lost), and the step fails with the check's error.
  graph::scope s{client_->context().ops()};
  auto far = s.with_device(task1);
  auto q = graph::queue::fifo(far.sub("q"), {{dtype::int32}, {{}}, -1});
  auto take = graph::identity(s.sub("got").with_device(task0),
                              q.dequeue(far.sub("take"))[0]);
  auto x
    = graph::placeholder(s.sub("x").with_device(task0), dtype::float32, {});
  auto checked
    = graph::check_numerics(s.sub("checked").with_device(task0), x, "x is bad");
  auto put = q.enqueue(far.sub("put"), {graph::constant(far, int32_t{42})});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{*client_};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  for (int i = 0; i < 3; ++i) {
    auto st = sess.run({{x.name(), tensor::scalar(std::nanf(""))}},
                       {take.name(), checked.name()}, {}, &out);
    EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
    EXPECT_EQ(st.node(), checked.node_name()) << st.to_string();
  }
  ASSERT_TRUE(sess.run({}, {}, {put.name}, &out).is_ok());
  auto st = sess.run({}, {take.name()}, {}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(out[0].scalar_value<int32_t>(), 42);
}

/// Two worker processes of their own and a client connected to them, for
/// tests that kill or stop a worker.
class cluster_failure : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(procs.ok()) << procs.error();
    actors::engine_options o;
    o.network = true;
    client_ = std::make_unique<actors::engine>(o);
    ASSERT_TRUE(actors::connect_cluster(*client_, procs.spec()).is_ok());
  }

  test::worker_processes procs{ACTORFLOW_CLI, 2};
  std::unique_ptr<actors::engine> client_;
};

TEST_F(cluster_failure, a_dead_worker_fails_its_steps_with_a_clear_error) {
  // Task 1 holds a queue nobody fills: a step that dequeues from it waits
  // until task 1 dies (SIGKILL, no goodbye on the wire), then fails
  // naming the task; so do later steps that need it, while steps on task
  // 0 alone go on.
  auto& client = *client_;
  graph::scope s{client.context().ops()};
  auto far = s.with_device(task1);
  auto q = graph::queue::fifo(far.sub("q"), {{dtype::float32}, {{}}, -1});
  auto waiting
    = graph::add(s.sub("waiting").with_device(task0),
                 q.dequeue(far.sub("take"))[0], graph::constant(s, 1.0f));
  auto size
    = graph::identity(s.sub("size").with_device(task0), q.size(far.sub("n")));
  auto alone = graph::constant(s.sub("alone").with_device(task0), 2.0f);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{client};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run({}, {size.name()}, {}, &out).is_ok());
  auto blocked = std::async(std::launch::async, [&] {
    std::vector<tensor> values;
    return sess.run({}, {waiting.name()}, {}, &values);
  });
  ASSERT_EQ(::kill(procs.pid(1), SIGKILL), 0);
  ASSERT_EQ(blocked.wait_for(std::chrono::seconds{30}),
            std::future_status::ready);
  auto st = blocked.get();
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.to_string().find("/job:worker/task:1"), std::string::npos)
    << st.to_string();
  st = sess.run({}, {size.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::unavailable) << st.to_string();
  EXPECT_NE(st.message().find("worker /job:worker/task:1 is gone"),
            std::string::npos)
    << st.to_string();
  st = sess.run({}, {alone.name()}, {}, &out);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
}

/// Waits (without a clock) until the worker of `task` runs no step.
bool worker_idle(actors::engine& client, const actors::cluster_task& task) {
  auto& sys = client.system();
  auto hdl
    = sys.middleman().remote_actor<actors::worker_actor>(task.host, task.port);
  return hdl && test::worker_idle(sys, *hdl);
}

TEST_F(cluster_failure, a_worker_killed_mid_step_is_taken_back_once_restarted) {
  // The step enqueues a signal on task 0 and waits there for a value task
  // 1 dequeues from an empty queue. Once the signal is out (the step is
  // in flight), task 1 gets SIGKILL: the run fails naming it within 2 s,
  // task 0 drops the step (its Recv waited for a value that cannot come),
  // and after task 1 is started again on its port, the same session and a
  // new one run again, their partitions registered anew without a person.
  auto& client = *client_;
  graph::scope s{client.context().ops()};
  auto near = s.with_device(task0);
  auto far = s.with_device(task1);
  auto signals
    = graph::queue::fifo(near.sub("signals"), {{dtype::float32}, {{}}, -1});
  auto signal
    = signals.enqueue(near.sub("signal"), {graph::constant(near, 1.0f)});
  auto q = graph::queue::fifo(far.sub("q"), {{dtype::float32}, {{}}, -1});
  auto waiting
    = graph::identity(near.sub("waiting"), q.dequeue(far.sub("take"))[0]);
  auto seen = signals.dequeue(near.sub("seen"))[0];
  auto put = q.enqueue(far.sub("put"), {graph::constant(far, 5.0f)});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{client};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto blocked = std::async(std::launch::async, [&] {
    std::vector<tensor> values;
    return sess.run({}, {waiting.name()}, {signal.name}, &values);
  });
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run({}, {seen.name()}, {}, &out).is_ok());
  auto killed = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(procs.pid(1), SIGKILL), 0);
  ASSERT_EQ(blocked.wait_for(std::chrono::seconds{30}),
            std::future_status::ready);
  EXPECT_LT(std::chrono::steady_clock::now() - killed, std::chrono::seconds{2});
  auto st = blocked.get();
  EXPECT_EQ(st.code(), core::errc::unavailable) << st.to_string();
  EXPECT_NE(st.message().find("worker /job:worker/task:1 is gone"),
            std::string::npos)
    << st.to_string();
  EXPECT_TRUE(worker_idle(client, procs.spec().tasks[0]));
  ASSERT_TRUE(procs.restart(1)) << procs.error();
  ASSERT_TRUE(sess.run({}, {}, {put.name}, &out).is_ok());
  st = sess.run({}, {waiting.name()}, {signal.name}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(out[0].scalar_value<float>(), 5.0f);
  actors::session fresh{client};
  ASSERT_TRUE(fresh.extend(s.graph_def()).is_ok());
  ASSERT_TRUE(fresh.run({}, {}, {put.name}, &out).is_ok());
  st = fresh.run({}, {waiting.name()}, {}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
}

TEST_F(cluster_failure, a_deadline_aborts_the_step_on_every_worker) {
  // Task 1 loops for ever, task 0 waits for its result: at the deadline
  // the run fails and both workers drop the step.
  auto& client = *client_;
  graph::scope s{client.context().ops()};
  auto far = s.with_device(task1);
  auto endless = graph::while_loop(
    far.sub("endless"),
    [](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::greater_equal(c, v[0],
                                  graph::constant(c, 0.0, dtype::int64));
    },
    [](const graph::scope& b, const std::vector<graph::output>& v) {
      return std::vector<graph::output>{
        graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64))};
    },
    {graph::constant(far.sub("i0"), 0.0, dtype::int64)})[0];
  auto result = graph::identity(s.sub("result").with_device(task0), endless);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{client};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  actors::run_options opts;
  opts.timeout = std::chrono::milliseconds{100};
  std::vector<tensor> out;
  auto st = sess.run(opts, {}, {result.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::deadline_exceeded) << st.to_string();
  EXPECT_TRUE(worker_idle(client, procs.spec().tasks[0]));
  EXPECT_TRUE(worker_idle(client, procs.spec().tasks[1]));
}

TEST(cluster_freeze, a_frozen_worker_is_gone_after_the_peer_timeout) {
  // Task 1 stopped (SIGSTOP): its process lives and its kernel keeps the
  // TCP connection open, but it sends no heartbeats; after the file's
  // peer timeout the client closes the connection and the step fails.
  const std::string timeouts = "timeouts:\n  heartbeat_ms: 100\n"
                               "  peer_ms: 2000\n";
  test::worker_processes procs{
    ACTORFLOW_CLI, {test::job_tasks{"worker", 2, 2, 1, {}, {}, {}}}, timeouts};
  ASSERT_TRUE(procs.ok()) << procs.error();
  actors::cluster_spec spec;
  ASSERT_TRUE(procs.client_spec(&spec).is_ok());
  EXPECT_EQ(spec.peer_timeout, std::chrono::milliseconds{2000});
  actors::engine client{actors::client_options(spec)};
  ASSERT_TRUE(actors::connect_cluster(client, spec).is_ok());
  graph::scope s{client.context().ops()};
  auto far = s.with_device(task1);
  auto q = graph::queue::fifo(far.sub("q"), {{dtype::float32}, {{}}, -1});
  auto waiting = graph::identity(s.sub("waiting").with_device(task0),
                                 q.dequeue(far.sub("take"))[0]);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{client};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto blocked = std::async(std::launch::async, [&] {
    std::vector<tensor> values;
    return sess.run({}, {waiting.name()}, {}, &values);
  });
  ASSERT_EQ(::kill(procs.pid(1), SIGSTOP), 0);
  auto started = std::chrono::steady_clock::now();
  auto ready = blocked.wait_for(std::chrono::seconds{30});
  ::kill(procs.pid(1), SIGKILL);
  ASSERT_EQ(ready, std::future_status::ready);
  auto st = blocked.get();
  EXPECT_EQ(st.code(), core::errc::unavailable) << st.to_string();
  EXPECT_NE(st.message().find("worker /job:worker/task:1 is gone"),
            std::string::npos)
    << st.to_string();
  EXPECT_GE(std::chrono::steady_clock::now() - started,
            std::chrono::milliseconds{1900});
}

TEST_F(cluster, a_traced_step_gathers_the_firings_of_both_workers) {
  constexpr int64_t n = 1000;
  auto md = traced_split_run(*client_, task0, task1, n);
  expect_split_run_stats(md, task0, task1, n);
  std::set<std::string> workers;
  for (const auto& d : md.stats.devices)
    workers.insert(d.worker);
  EXPECT_EQ(workers, (std::set<std::string>{"/job:worker/task:0",
                                            "/job:worker/task:1"}));
  // The product and the loop's predicate crossed between the processes.
  EXPECT_GT(md.stats.process_messages, 20);
  EXPECT_GE(md.stats.process_bytes, n * 4);
  actors::chrome_trace trace;
  trace.add(md.stats);
  expect_trace_structure(trace.to_json(), 1);
}

TEST_F(cluster, float32_values_cross_tasks_as_bfloat16_when_asked) {
  // x on task 0, x * 1 on task 1, + 0 back on task 0: the value crosses
  // twice. 1 + 2^-12 has no bfloat16 (8 significant bits): it arrives as 1;
  // within a task nothing changes.
  auto build = [](graph::scope& s) {
    auto here = s.with_device(task0);
    auto far = s.with_device(task1);
    auto x = graph::constant(
      here, tensor::from_vector<float>({3}, {1.0f + 1.0f / 4096, 3.0f, -0.5f}));
    auto there = graph::mul(far, x, graph::constant(far, 1.0f));
    auto back = graph::add(here, there, graph::constant(here, 0.0f));
    auto local = graph::add(here, x, graph::constant(here, 0.0f));
    return std::vector<std::string>{back.name(), local.name()};
  };
  for (auto wire : {core::dtype::invalid, core::dtype::bfloat16}) {
    graph::scope s{client_->context().ops()};
    auto fetches = build(s);
    actors::session_options o;
    o.wire_dtype = wire;
    actors::session sess{*client_, o};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<tensor> out;
    actors::run_metadata m;
    auto st = sess.run({}, fetches, {}, &out, &m);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    float crossed = wire == core::dtype::invalid ? 1.0f + 1.0f / 4096 : 1.0f;
    EXPECT_EQ(out[0], tensor::from_vector<float>({3}, {crossed, 3.0f, -0.5f}));
    EXPECT_EQ(out[1], tensor::from_vector<float>(
                        {3}, {1.0f + 1.0f / 4096, 3.0f, -0.5f}));
    int casts = 0;
    for (const auto& [node, device] : m.placement)
      casts += node.rfind("_wire_", 0) == 0 || node.rfind("_unwire_", 0) == 0;
    EXPECT_EQ(casts, wire == core::dtype::invalid ? 0 : 4);
  }
  // Not a dtype for the wire.
  graph::scope s{client_->context().ops()};
  auto fetches = build(s);
  actors::session_options o;
  o.wire_dtype = core::dtype::int32;
  actors::session sess{*client_, o};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto st = sess.run({}, fetches, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
}
