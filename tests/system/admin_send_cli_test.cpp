// rmq-admin sendMessage against a real NameServer and broker: one line per
// send in mqadmin's columns (plus offsetMsgId and queue offset), the
// message stored under the printed ids, exit 1 when a send fails and 2 for
// a usage error.
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in{line};
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

} // namespace

TEST_SUITE("system.admin.send") {
  TEST_CASE("sendMessage sends through a producer and prints each send") {
    temp_dir dir;
    auto ns = start_namesrv();
    broker_launch how;
    how.namesrvs = {ns.addr()};
    how.store_dir = dir.path() + "/a";
    auto broker = start_broker_node(how);
    remote_client client;
    auto front = connect_broker(client, broker.port);
    create_topic(client, front, "TopicSend", 2);
    auto n = ns.addr();
    auto res = run_admin({"--namesrv", n, "sendMessage", "-t", "TopicSend",
                          "-p", "hello", "-k", "K1", "-c", "TagA", "-n", "3"});
    REQUIRE_MESSAGE(res.rc == 0, res.out);
    auto lines = lines_of(res.out);
    // Log lines go to stderr, which run_admin merges: keep the table.
    std::vector<std::vector<std::string>> rows;
    for (auto& line : lines)
      if (line.rfind("#Broker Name", 0) == 0 || line.rfind("broker-a", 0) == 0)
        rows.push_back(words_of(line));
    REQUIRE_EQ(rows.size(), 4u);
    CHECK_EQ(rows[0][0], "#Broker");
    for (size_t i = 1; i < rows.size(); ++i) {
      REQUIRE_EQ(rows[i].size(), 6u);
      CHECK_EQ(rows[i][2], "SEND_OK");
      CHECK_EQ(rows[i][3].size(), 32u); // UNIQ_KEY
      CHECK_EQ(rows[i][4].size(), 32u); // offsetMsgId
    }
    // The printed UNIQ_KEY finds the message.
    auto query = run_admin(
      {"-n", n, "queryMsgById", "-i", rows[1][3], "-t", "TopicSend"});
    CHECK_MESSAGE(query.rc == 0, query.out);
    CHECK_NE(query.out.find("hello"), std::string::npos);
    // To a given queue.
    res = run_admin({"-n", n, "sendMessage", "-t", "TopicSend", "-p", "q1",
                     "-b", "broker-a", "-i", "1"});
    REQUIRE_MESSAGE(res.rc == 0, res.out);
    CHECK_NE(res.out.find("broker-a                          1     SEND_OK"),
             std::string::npos);
    // A send that fails: exit 1, a Failed row and the reason.
    res = run_admin({"-n", n, "sendMessage", "-t", "bad topic!", "-p", "x"});
    CHECK_EQ(res.rc, 1);
    CHECK_NE(res.out.find("Failed"), std::string::npos);
    CHECK_NE(res.out.find("message_illegal"), std::string::npos);
    // A queue without a broker name is a usage error.
    res = run_admin(
      {"-n", n, "sendMessage", "-t", "TopicSend", "-p", "x", "-i", "1"});
    CHECK_EQ(res.rc, 2);
  }
}
