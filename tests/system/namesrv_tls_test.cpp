// A NameServer with mutual TLS (--tls-dir): it serves peers holding a
// certificate from the cluster's CA and refuses everyone else before BASP
// reads a byte, so the 32-byte header that makes a plain node allocate
// ~4 GiB (payload_len 0xFFFFFFFF) costs a TLS node nothing. Certificates
// are made per test with apps/rmq-node/make-dev-certs.sh: one cluster CA
// and one other CA.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>

#include "caf/sec.hpp"

#include "messages/common/errors.hpp"
#include "runtime/net/tls_stream.hpp"
#include "runtime/remoting/remoting_client.hpp"
#include "runtime/remoting/remoting_codes.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace std::chrono_literals;
using namespace rmq::test;

namespace {

struct tls_fixture {
  temp_dir dir{"rmq-tls-test"};
  std::string cluster = dir.path() + "/cluster";
  std::string other = dir.path() + "/other";

  tls_fixture() {
    make_dev_certs(cluster, {"node", "client", "broker"});
    make_dev_certs(other, {"client"});
  }

  namesrv_process start_tls_namesrv() {
    namesrv_launch how;
    how.tls_dir = cluster + "/node";
    return start_namesrv(how);
  }
};

void check_serves(remote_client& client, uint16_t port) {
  auto hdl = client.try_connect(port);
  REQUIRE_MESSAGE(hdl, rmq::describe(hdl.error()));
  auto topics = client.ask<rmq::topic_list>(*hdl,
                                            rmq::get_all_topic_list_request{});
  CHECK_MESSAGE(topics, rmq::describe(topics.error()));
}

} // namespace

TEST_SUITE("system.namesrv.tls") {
  TEST_CASE_FIXTURE(tls_fixture,
                    "a TLS NameServer serves a TLS client and a TLS broker") {
    auto ns = start_tls_namesrv();
    auto broker = start_broker({ns.addr()}, "broker-a", "TopicA",
                               cluster + "/broker");
    remote_client client{cluster + "/client"};
    auto hdl = client.try_connect(ns.port);
    REQUIRE_MESSAGE(hdl, rmq::describe(hdl.error()));
    CHECK(client.knows_broker(*hdl, "broker-a"));
    auto route = client.ask<rmq::topic_route_data>(
      *hdl, rmq::get_route_info_request{"TopicA"});
    REQUIRE(route);
    REQUIRE_EQ(route->queue_datas.size(), 1u);
    CHECK_EQ(route->queue_datas[0].broker_name, "broker-a");
    auto res = run_admin(
      {"-n", ns.addr(), "--tls-dir", cluster + "/client", "clusterList"});
    CHECK_EQ(res.rc, 0);
    CHECK(res.out.find("broker-a") != std::string::npos);
  }

  TEST_CASE_FIXTURE(tls_fixture, "a TLS NameServer refuses a plain-TCP peer "
                                 "and a certificate from another CA") {
    auto ns = start_tls_namesrv();
    // A member's connection made before the refusals must survive them (see
    // runtime/net/openssl_fixes.hpp: without the fix it did not).
    remote_client member{cluster + "/client"};
    check_serves(member, ns.port);
    {
      remote_client plain;
      auto hdl = plain.try_connect(ns.port);
      REQUIRE_FALSE(hdl);
      CHECK_EQ(hdl.error(), caf::sec::disconnect_during_handshake);
    }
    {
      remote_client stranger{other + "/client"};
      auto hdl = stranger.try_connect(ns.port);
      REQUIRE_FALSE(hdl);
      CHECK_EQ(hdl.error(), caf::sec::disconnect_during_handshake);
    }
    auto res = run_admin({"-n", ns.addr(), "--timeout-ms", "5000", "--tls-dir",
                          other + "/client", "topicList"});
    CHECK_EQ(res.rc, 1);
    CHECK(res.out.find("cannot connect to namesrv") != std::string::npos);
    // The node still serves its own, on the old connection and a new one.
    check_serves(member, ns.port);
    remote_client newcomer{cluster + "/client"};
    check_serves(newcomer, ns.port);
  }

  TEST_CASE_FIXTURE(tls_fixture, "a 32-byte oversize BASP header sent to a TLS "
                                 "port costs no memory") {
    auto ns = start_tls_namesrv();
    remote_client member{cluster + "/client"};
    check_serves(member, ns.port); // warm: the node has served a TLS peer
    CHECK(rss_growth_from_oversize_headers(*ns.proc, ns.port) < 4 * 1024);
    CHECK_EQ(ns.proc->wait(0ms), -1); // still running
    check_serves(member, ns.port);    // the connection from before
    remote_client newcomer{cluster + "/client"};
    check_serves(newcomer, ns.port);
  }

  TEST_CASE_FIXTURE(tls_fixture, "rmq-node refuses to start with unusable "
                                 "TLS files") {
    auto run_node = [&](const std::string& tls_dir, std::string& out) {
      return run_command({"/bin/sh", "-c",
                          "exec '" + bin_dir() + "/rmq-node' --port=0 "
                            + "--tls-dir='" + tls_dir + "' 2>&1"},
                         out);
    };
    std::string out;
    CHECK_EQ(run_node(dir.path() + "/missing", out), 2);
    CHECK(out.find("rmq-node: cannot load certificate '" + dir.path()
                   + "/missing/cert.pem'")
          != std::string::npos);
    // The node's certificate with the client's key.
    auto mixed = dir.path() + "/mixed";
    std::filesystem::create_directory(mixed);
    for (auto [from, name] :
         {std::pair{"node", "cert.pem"}, std::pair{"node", "ca.pem"},
          std::pair{"client", "key.pem"}})
      std::filesystem::copy_file(cluster + "/" + from + "/" + name,
                                 mixed + "/" + name);
    CHECK_EQ(run_node(mixed, out), 2);
    CHECK(
      out.find("rmq-node: cannot load private key '" + mixed + "/key.pem': ")
      != std::string::npos);
  }

  TEST_CASE_FIXTURE(tls_fixture, "the remoting port speaks mutual TLS under "
                                 "--tls-dir; plain and foreign peers are "
                                 "refused, the others served") {
    auto ns = start_tls_namesrv();
    REQUIRE_NE(ns.remoting_port, 0);
    auto tls_for = [](const std::string& dir) {
      auto ctx = rmq::tls_context::load(dir + "/ca.pem", dir + "/cert.pem",
                                        dir + "/key.pem", false);
      REQUIRE_MESSAGE(ctx, rmq::describe(ctx.error()));
      return *ctx;
    };
    auto route_query = [] {
      rmq::remoting::remoting_command req;
      req.code = rmq::remoting::request_code::get_routeinfo_by_topic;
      req.ext_fields["topic"] = "NoSuchTopic";
      return req;
    };
    rmq::remoting::remoting_client good;
    REQUIRE_MESSAGE(good.connect("127.0.0.1", ns.remoting_port,
                                 tls_for(cluster + "/client")),
                    good.error());
    auto res = good.call(route_query(), 10s);
    REQUIRE_MESSAGE(res, good.error());
    CHECK_EQ(res->code, rmq::remoting::response_code::topic_not_exist);
    // Plain TCP: the server reads no frame, it closes the connection.
    rmq::remoting::remoting_client plain;
    REQUIRE(plain.connect("127.0.0.1", ns.remoting_port));
    REQUIRE(plain.send(route_query()));
    CHECK_FALSE(plain.receive(10s));
    CHECK(plain.peer_closed());
    // A certificate of another CA: refused in the handshake (TLS 1.3: the
    // client may finish first and learn it at its first read).
    rmq::remoting::remoting_client foreign;
    if (foreign.connect("127.0.0.1", ns.remoting_port,
                        tls_for(other + "/client")))
      CHECK_FALSE(foreign.call(route_query(), 10s));
    // Garbage where a TLS record belongs.
    int fd = raw_connect(ns.remoting_port);
    REQUIRE_GE(fd, 0);
    std::string junk(64, '\x7f');
    CHECK_EQ(::write(fd, junk.data(), junk.size()),
             static_cast<ssize_t>(junk.size()));
    char byte;
    CHECK_LE(::read(fd, &byte, 1), 1); // an alert or the close
    ::close(fd);
    // The good one is still served.
    res = good.call(route_query(), 10s);
    REQUIRE_MESSAGE(res, good.error());
    CHECK_EQ(res->code, rmq::remoting::response_code::topic_not_exist);
  }

} // TEST_SUITE
