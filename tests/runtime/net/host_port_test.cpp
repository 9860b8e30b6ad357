// The one host:port parser: single endpoints and RocketMQ's ';' lists.
#include <doctest/doctest.h>

#include "runtime/net/host_port.hpp"

using rmq::parse_host_port;
using rmq::parse_host_port_list;
using rmq::parse_port;

TEST_SUITE("runtime.host_port") {
  TEST_CASE("a port is 1..65535 in digits; 0 only when allowed") {
    CHECK_EQ(parse_port("9876"), uint16_t{9876});
    CHECK_EQ(parse_port("65535"), uint16_t{65535});
    CHECK_EQ(parse_port("0", true), uint16_t{0});
    for (auto bad :
         {"", "0", "65536", "123456", "-1", "+1", " 1", "1x", "0x10"})
      CHECK_MESSAGE(!parse_port(bad), bad);
  }

  TEST_CASE("host:port splits at the last colon") {
    auto a = parse_host_port("127.0.0.1:9876");
    REQUIRE(a);
    CHECK_EQ(a->host, "127.0.0.1");
    CHECK_EQ(a->port, 9876);
    CHECK_EQ(a->to_string(), "127.0.0.1:9876");
    auto v6 = parse_host_port("[::1]:10911");
    REQUIRE(v6);
    CHECK_EQ(v6->host, "[::1]");
    for (auto bad : {"", "host", ":9876", "host:", "host:0", "host:x"})
      CHECK_MESSAGE(!parse_host_port(bad), bad);
  }

  TEST_CASE("a NameServer list skips empty entries and refuses bad ones") {
    auto xs = parse_host_port_list("127.0.0.1:9876;;localhost:9877;");
    REQUIRE(xs);
    REQUIRE_EQ(xs->size(), 2u);
    CHECK_EQ((*xs)[1].host, "localhost");
    CHECK_EQ(rmq::join_host_ports(*xs), "127.0.0.1:9876;localhost:9877");
    CHECK(!parse_host_port_list(""));
    CHECK(!parse_host_port_list(";"));
    CHECK(!parse_host_port_list("127.0.0.1:9876;nonsense"));
  }

  TEST_CASE("a list joined by ',' is refused; spaces around ';' are not") {
    // Before, "a:1, b:2" passed as one host "a:1, b" and never connected.
    CHECK(!parse_host_port_list("127.0.0.1:9876, 127.0.0.1:9877"));
    CHECK(!parse_host_port_list("127.0.0.1:9876,127.0.0.1:9877"));
    CHECK(!parse_host_port("a b:9876"));
    auto xs = parse_host_port_list("127.0.0.1:9876; 127.0.0.1:9877 ");
    REQUIRE(xs);
    REQUIRE_EQ(xs->size(), 2u);
    CHECK_EQ((*xs)[1].host, "127.0.0.1");
    CHECK_EQ((*xs)[1].port, 9877);
    CHECK(parse_host_port("[::1]:9876"));
    CHECK(parse_host_port("my-host.example_1:9876"));
  }

} // TEST_SUITE
