// A real third-party RocketMQ client, unmodified, against real rmq-node
// processes over remoting: ali-ons (Node.js; tests/system/alions/, its
// versions pinned by the lockfile, installed by `.ci/setup tests`). Its
// producer sends to a topic on two brokers, one of which is killed with
// SIGKILL midway and restarted; its clustering consumer group of two
// members takes every acknowledged message at least once, bodies over
// 4 KiB compressed by the client, a refused message back through the
// retry topic (CONSUMER_SEND_MSG_BACK); groups that start from the last
// offset and from a timestamp take what comes after them.
#include <chrono>
#include <csignal>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "messages/broker/broker.hpp"
#include "runtime/remoting/remoting_client.hpp"
#include "runtime/remoting/remoting_codes.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"
#include "tests/system/broker_system_support.hpp"
#include "tests/system/namesrv_system_support.hpp"
#include "tests/system/remoting_call.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicAliOns";

std::string script() {
  return source_dir() + "/tests/system/alions/alions_client.js";
}

// A printed line's words.
std::vector<std::string> words(const std::string& line) {
  std::istringstream in{line};
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

// One ali-ons process (alions_client.js) and what it said so far.
struct alions_process {
  std::unique_ptr<child_process> proc;
  std::vector<std::string> lines;

  explicit alions_process(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/env", "node", script()});
    proc = std::make_unique<child_process>(std::move(args));
  }

  // Reads lines until one starts with `prefix` (bounded).
  bool wait_for(const std::string& prefix, std::chrono::seconds timeout = 60s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string line;
    while (std::chrono::steady_clock::now() < deadline)
      if (proc->read_line(line, 200ms)) {
        lines.push_back(line);
        if (line.rfind(prefix, 0) == 0)
          return true;
      } else if (!proc->running()) {
        return false;
      }
    return false;
  }

  // Reads whatever came within `for_at_most`.
  void drain(std::chrono::milliseconds for_at_most) {
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + for_at_most;
    while (std::chrono::steady_clock::now() < deadline
           && proc->read_line(line, 50ms))
      lines.push_back(line);
  }

  // The words of every line starting with `word`.
  std::vector<std::vector<std::string>> events(const std::string& word) const {
    std::vector<std::vector<std::string>> out;
    for (auto& line : lines) {
      auto w = words(line);
      if (!w.empty() && w[0] == word)
        out.push_back(std::move(w));
    }
    return out;
  }
};

// The keys consumed by `consumers` (at their first or a later delivery).
std::set<std::string> consumed_keys(std::vector<alions_process*> consumers) {
  std::set<std::string> out;
  for (auto* c : consumers)
    for (auto& e : c->events("consumed"))
      out.insert(e.at(1));
  return out;
}

// Waits (bounded) until `consumers` took every key of `want`.
bool consumed_all(std::vector<alions_process*> consumers,
                  const std::set<std::string>& want,
                  std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    for (auto* c : consumers)
      c->drain(100ms);
    auto got = consumed_keys(consumers);
    bool all = true;
    for (auto& k : want)
      all = all && got.count(k) > 0;
    if (all)
      return true;
  }
  return false;
}

std::set<std::string> sent_keys(const alions_process& producer) {
  std::set<std::string> out;
  for (auto& e : producer.events("sent"))
    out.insert(e.at(1));
  return out;
}

// A time as ali-ons' consumeTimestamp takes it (local, yyyyMMddHHmmss).
std::string consume_timestamp(std::time_t t) {
  std::tm local{};
  localtime_r(&t, &local);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", &local);
  return buf;
}

} // namespace

TEST_SUITE("system.alions") {
  TEST_CASE("ali-ons produces and consumes across two brokers, one killed "
            "midway") {
    temp_dir dir;
    auto ns = start_namesrv();
    REQUIRE_NE(ns.remoting_port, 0);
    auto how_a = one_broker(ns, dir.path() + "/a");
    auto how_b = one_broker(ns, dir.path() + "/b");
    how_b.name = "broker-b";
    auto a = start_broker_node(how_a);
    auto b = start_broker_node(how_b);
    remote_client client;
    for (auto* broker : {&a, &b})
      create_topic(client, connect_broker(client, broker->port), topic, 4);
    REQUIRE(wait_until(
      [&] { return route_brokers(client, ns.port, topic).size() == 2; }, 10s));
    auto namesrv = "127.0.0.1:" + std::to_string(ns.remoting_port);

    // Two members of one clustering group, from the first offset.
    alions_process c1{{"consume", namesrv, topic, "CG_ALIONS", "first"}};
    alions_process c2{{"consume", namesrv, topic, "CG_ALIONS", "first"}};
    REQUIRE(c1.wait_for("ready"));
    REQUIRE(c2.wait_for("ready"));

    // 200 sends; broker-b is killed after 100 and comes back after.
    auto go = dir.path() + "/go";
    alions_process producer{{"produce", namesrv, topic, "0", "200", "100", go}};
    REQUIRE(producer.wait_for("paused"));
    auto before_kill = sent_keys(producer);
    CHECK_EQ(before_kill.size(), 100u);
    b.proc->signal(SIGKILL);
    REQUIRE_EQ(b.proc->wait(10s), 128 + SIGKILL);
    std::ofstream{go} << "go\n";
    REQUIRE(producer.wait_for("done", 120s));
    auto sent = sent_keys(producer);
    MESSAGE("sent " << sent.size() << " of 200; "
                    << producer.events("send-failed").size()
                    << " failed after the client's retries");
    // The client's retries take each send to the live broker.
    CHECK_GE(sent.size(), 190u);
    std::map<std::string, int> per_broker;
    for (auto& e : producer.events("sent"))
      ++per_broker[e.at(3)];
    CHECK_GT(per_broker["broker-a"], 0);
    CHECK_GT(per_broker["broker-b"], 0);
    restart_broker_node(b, how_b);

    // Every acknowledged message, at least once; the refused ones (keys
    // ending in "r") again through the retry topic.
    REQUIRE(consumed_all({&c1, &c2}, sent, 90s));
    std::set<std::string> retried;
    for (auto* c : {&c1, &c2})
      for (auto& e : c->events("consumed")) {
        if (e.at(2) != "0")
          retried.insert(e.at(1));
        // Every 10th body is over 6 KiB, compressed by the client. (Not
        // checked after the kill: ali-ons compresses a body again when it
        // retries a send.)
        auto n = std::stoi(e.at(1).substr(1));
        if (n % 10 == 0 && before_kill.count(e.at(1)) > 0)
          CHECK_GT(std::stoul(e.at(4)), 4096u);
        CHECK((e.at(3) == "TagA" || e.at(3) == "TagB"));
      }
    std::set<std::string> refused;
    for (auto& k : sent)
      if (k.back() == 'r')
        refused.insert(k);
    REQUIRE(wait_until(
      [&] {
        for (auto* c : {&c1, &c2})
          c->drain(100ms);
        retried.clear();
        for (auto* c : {&c1, &c2})
          for (auto& e : c->events("consumed"))
            if (e.at(2) != "0")
              retried.insert(e.at(1));
        return retried == refused;
      },
      60s));
    // Both members took a share.
    CHECK_FALSE(c1.events("consumed").empty());
    CHECK_FALSE(c2.events("consumed").empty());

    // Groups from the last offset and from a timestamp, on a topic that
    // is empty when they start: the broker has no offset for them
    // (QUERY_CONSUMER_OFFSET: not found), so ali-ons asks GET_MAX_OFFSET
    // and SEARCH_OFFSET_BY_TIMESTAMP, and both take what comes after. (On
    // a queue that still holds message 0 a new group starts at 0, as
    // RocketMQ's broker answers.)
    const std::string late = "TopicAliOnsLate";
    create_topic(client, connect_broker(client, a.port), late, 2);
    REQUIRE(wait_until(
      [&] { return route_brokers(client, ns.port, late).size() == 1; }, 10s));
    alions_process last{{"consume", namesrv, late, "CG_LAST", "last"}};
    alions_process since{{"consume", namesrv, late, "CG_TIME", "timestamp",
                          consume_timestamp(std::time(nullptr))}};
    REQUIRE(last.wait_for("ready"));
    REQUIRE(since.wait_for("ready"));
    alions_process more{{"produce", namesrv, late, "1000", "20"}};
    REQUIRE(more.wait_for("done", 60s));
    auto second = sent_keys(more);
    CHECK_EQ(second.size(), 20u);
    CHECK(consumed_all({&last}, second, 60s));
    CHECK(consumed_all({&since}, second, 60s));
  }

  TEST_CASE("one consumer group of an ali-ons member and a CAF member; "
            "messages of both kinds of producers reach both") {
    temp_dir dir;
    auto ns = start_namesrv();
    auto broker = start_broker_node(one_broker(ns, dir.path() + "/a"));
    remote_client client;
    create_topic(client, connect_broker(client, broker.port), topic, 4);
    REQUIRE(wait_until(
      [&] { return route_brokers(client, ns.port, topic).size() == 1; }, 10s));
    auto namesrv = "127.0.0.1:" + std::to_string(ns.remoting_port);
    alions_process js{{"consume", namesrv, topic, "CG_MIX", "first"}};
    REQUIRE(js.wait_for("ready"));
    child_process caf_member{{bin_dir() + "/push_consumer_example",
                              "--namesrv=" + ns.addr(), "--topic=" + topic,
                              "--group=CG_MIX", "--from=first", "--print=ids",
                              "--rebalance-interval-ms=1000"},
                             true};
    // Both are members before anything is sent.
    auto front = connect_broker(client, broker.port);
    REQUIRE(wait_until(
      [&] {
        auto ids = client.ask<consumer_list>(
          front, get_consumer_list_request{"CG_MIX"});
        return ids && ids->client_ids.size() == 2;
      },
      30s));
    // mqadmin's consumerConnection, as rmq-admin prints it: both members.
    std::string conns;
    REQUIRE_EQ(run_command({bin_dir() + "/rmq-admin", "-n", ns.addr(),
                            "consumerConnection", "-g", "CG_MIX"},
                           conns),
               0);
    CHECK_NE(conns.find("001  "), std::string::npos);
    CHECK_NE(conns.find("002  "), std::string::npos);
    CHECK_NE(conns.find(" JAVA "), std::string::npos); // ali-ons says JAVA
    CHECK_NE(conns.find(" CPP "), std::string::npos);
    CHECK_NE(conns.find("ConsumeType: CONSUME_PASSIVELY\n"), std::string::npos);
    // mqadmin consumerStatus asks each member through the broker
    // (GET_CONSUMER_RUNNING_INFO). Our CAF member answers with what it
    // holds; ali-ons does not answer such requests at all, so the broker
    // says CONSUME_MSG_TIMEOUT after its 10 s, as RocketMQ's does.
    {
      remoting::remoting_client admin;
      REQUIRE_MESSAGE(admin.connect("127.0.0.1", broker.remoting_port),
                      admin.error());
      auto members = nlohmann::json::parse(
        remoting_call(admin,
                      remoting::request_code::get_consumer_connection_list,
                      {{"consumerGroup", "CG_MIX"}})
          .body)["connectionSet"];
      REQUIRE_EQ(members.size(), 2u);
      std::map<std::string, std::string> id_of; // by language
      for (auto& m : members)
        id_of[m["language"]] = m["clientId"];
      auto running_info = [&](const std::string& language) {
        return remoting_call(admin,
                             remoting::request_code::get_consumer_running_info,
                             {{"consumerGroup", "CG_MIX"},
                              {"clientId", id_of[language]},
                              {"jstackEnable", "false"}},
                             {}, 30s);
      };
      auto caf_info = running_info("CPP");
      REQUIRE_EQ(caf_info.code, remoting::response_code::success);
      // MessageQueue objects as map keys, as fastjson writes them.
      CHECK_NE(caf_info.body.find("\"mqTable\":{{\"brokerName\":"),
               std::string::npos);
      CHECK_NE(caf_info.body.find("\"consumerGroup\":\"CG_MIX\""),
               std::string::npos);
      CHECK_NE(caf_info.body.find("\"PROP_CONSUME_TYPE\":"
                                  "\"CONSUME_PASSIVELY\""),
               std::string::npos);
      CHECK_NE(caf_info.body.find("\"topic\":\"" + topic + "\""),
               std::string::npos);
      // rmq-admin consumerStatus -i: the same through the CAF port, as
      // mqadmin prints it.
      std::string status;
      REQUIRE_EQ(run_command({bin_dir() + "/rmq-admin", "-n", ns.addr(),
                              "consumerStatus", "-g", "CG_MIX", "-i",
                              id_of["CPP"]},
                             status),
                 0);
      CHECK_EQ(status.rfind("#Consumer Properties#\n", 0), 0u);
      CHECK_NE(status.find("consumerGroup                           : CG_MIX"),
               std::string::npos);
      CHECK_NE(status.find("\n#Consumer Offset#\n"), std::string::npos);
      CHECK_NE(status.find("\n" + topic + " "), std::string::npos);
      CHECK_NE(status.find("ProcessQueueInfo [commitOffset="),
               std::string::npos);
      auto js_info = running_info("JAVA");
      CHECK_EQ(js_info.code, remoting::response_code::consume_msg_timeout);
      CHECK_EQ(js_info.remark.value_or("").rfind("consumer <CG_MIX> <", 0), 0u);
    }
    // 20 from ali-ons (keys k0..k19), 20 from rmq-admin's CAF producer
    // (key "caf"), round robin over the four queues.
    alions_process producer{{"produce", namesrv, topic, "0", "20"}};
    REQUIRE(producer.wait_for("done", 60s));
    CHECK_EQ(sent_keys(producer).size(), 20u);
    std::string out;
    REQUIRE_EQ(run_command({bin_dir() + "/rmq-admin", "-n", ns.addr(),
                            "sendMessage", "-t", topic, "-p", "from CAF", "-k",
                            "caf", "-n", "20"},
                           out),
               0);
    // Every message at least once across the two; each member takes
    // messages of both kinds of producers. The CAF producer's are told
    // apart by queue and offset (they share a key).
    std::vector<std::string> caf_lines;
    std::set<std::string> caf_msgs; // queue:offset of "caf" messages seen
    std::set<std::string> js_msgs;  // keys of ali-ons' messages seen
    int js_took_caf = 0, caf_took_js = 0;
    REQUIRE(wait_until(
      [&] {
        js.drain(100ms);
        std::string line;
        while (caf_member.read_line(line, 50ms))
          caf_lines.push_back(line);
        caf_msgs.clear();
        js_msgs.clear();
        js_took_caf = caf_took_js = 0;
        for (auto& l : caf_lines) {
          auto w = words(l);
          if (w.size() < 9 || w[0] != "msg")
            continue;
          if (w[8] == "caf") {
            caf_msgs.insert(w[3] + ":" + w[4]);
          } else {
            js_msgs.insert(w[8]);
            ++caf_took_js;
          }
        }
        for (auto& e : js.events("consumed")) {
          if (e.at(1) == "caf") {
            caf_msgs.insert(e.at(5));
            ++js_took_caf;
          } else {
            js_msgs.insert(e.at(1));
          }
        }
        return caf_msgs.size() == 20 && js_msgs.size() == 20;
      },
      60s));
    CHECK_GT(js_took_caf, 0);
    CHECK_GT(caf_took_js, 0);
  }
}
