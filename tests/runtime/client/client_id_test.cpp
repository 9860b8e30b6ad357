// RocketMQ's client id and local address choice.
#include "runtime/client/client_id.hpp"

#include <algorithm>

#include <doctest/doctest.h>

using namespace rmq;

TEST_SUITE("runtime.client_id") {
  TEST_CASE("DEFAULT becomes pid#nanotime, other names stay") {
    CHECK_EQ(effective_instance_name("DEFAULT", 42, 123456789), "42#123456789");
    CHECK_EQ(effective_instance_name("orders", 42, 1), "orders");
    CHECK_EQ(build_client_id("10.0.0.1", "orders"), "10.0.0.1@orders");
  }

  TEST_CASE("private ranges are internal, others are not") {
    CHECK(is_internal_ipv4("10.1.2.3"));
    CHECK(is_internal_ipv4("127.0.0.1"));
    CHECK(is_internal_ipv4("172.16.0.1"));
    CHECK(is_internal_ipv4("172.31.255.1"));
    CHECK_FALSE(is_internal_ipv4("172.32.0.1"));
    CHECK(is_internal_ipv4("192.168.1.1"));
    CHECK_FALSE(is_internal_ipv4("192.169.1.1"));
    CHECK_FALSE(is_internal_ipv4("8.8.8.8"));
    CHECK_FALSE(is_internal_ipv4("not an ip"));
  }

  TEST_CASE("the first external address wins, else the last internal one, "
            "else loopback") {
    CHECK_EQ(choose_local_ipv4({"127.0.0.1", "10.0.0.1", "8.8.4.4", "1.2.3.4"}),
             "8.8.4.4");
    CHECK_EQ(choose_local_ipv4({"127.0.0.1", "10.0.0.1", "192.168.0.7"}),
             "192.168.0.7");
    CHECK_EQ(choose_local_ipv4({"127.0.0.1"}), "127.0.0.1");
    CHECK_EQ(choose_local_ipv4({}), "127.0.0.1");
  }

  TEST_CASE("this host's choice is one of its addresses or loopback") {
    auto ip = local_ipv4();
    auto all = local_ipv4_addresses();
    CHECK((ip == "127.0.0.1"
           || std::find(all.begin(), all.end(), ip) != all.end()));
    auto id = make_client_id("", "x");
    CHECK_EQ(id, ip + "@x");
  }
}
