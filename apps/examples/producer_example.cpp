// A producer program: sends --count messages of --size bytes to --topic
// through the producer facade (actors/client/producer.hpp), sync, async
// or oneway, and prints what came back. Retries over brokers, fault
// avoidance, auto-batching of async sends and back-pressure are the
// producer's (docs/client.md, Producer).
//
// How to run (a NameServer and a broker that creates topics on first use):
//   build/rmq-node --role=namesrv --port=9876 &
//   build/rmq-node --role=broker --namesrv=127.0.0.1:9876 --port=10911
//     --store-dir=/tmp/rmq-a &  (one line)
//   build/producer_example --namesrv=127.0.0.1:9876 --topic=TopicTest
//     --count=1000 --mode=async  (one line)
// Exit status: 0 when every send succeeded, 1 when one failed, 2 for bad
// options.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string>

#include "caf/actor_system.hpp"

#include "actors/client/producer.hpp"
#include "messages/errors.hpp"
#include "runtime/node_config.hpp"

namespace {

struct config : rmq::node_config {
  std::string namesrv = "127.0.0.1:9876";
  std::string group = "ExampleProducerGroup";
  std::string topic = "TopicTest";
  std::string tags = "TagA";
  std::string mode = "sync";
  int64_t count = 10;
  int64_t size = 128;
  int64_t timeout_ms = 3'000;

  config() {
    opt_group{custom_options_, "global"}
      .add(namesrv, "namesrv", "NameServers, 'host:port;host:port'")
      .add(group, "group", "producer group")
      .add(topic, "topic", "topic to send to")
      .add(tags, "tags", "tags of every message")
      .add(mode, "mode", "sync, async or oneway")
      .add(count, "count", "messages to send")
      .add(size, "size", "body bytes per message")
      .add(timeout_ms, "timeout-ms", "send timeout (retries included)");
  }
};

} // namespace

// Not CAF_MAIN: CAF 0.17's exec_main drops caf_main's exit code.
int main(int argc, char** argv) {
  config cfg;
  if (auto err = cfg.parse_command_line(argc, argv)) {
    std::cerr << "producer_example: " << caf::actor_system_config::render(err)
              << std::endl;
    return 2;
  }
  if (cfg.cli_helptext_printed)
    return 0;
  if (cfg.count < 0 || cfg.size <= 0 || cfg.timeout_ms <= 0
      || (cfg.mode != "sync" && cfg.mode != "async" && cfg.mode != "oneway")) {
    std::cerr << "producer_example: --count >= 0, --size > 0, --timeout-ms "
                 "> 0, --mode sync|async|oneway\n";
    return 2;
  }
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << "producer_example: " << why << std::endl;
    return 2;
  }
  caf::actor_system sys{cfg};
  rmq::producer_config pcfg;
  pcfg.group = cfg.group;
  pcfg.client.namesrv = cfg.namesrv;
  pcfg.send_timeout = std::chrono::milliseconds{cfg.timeout_ms};
  auto p = rmq::spawn_producer(sys, pcfg);
  if (!p) {
    std::cerr << "producer_example: " << rmq::describe(p.error()) << std::endl;
    return 2;
  }
  std::atomic<int64_t> ok{0};
  std::atomic<int64_t> failed{0};
  std::mutex mtx;
  std::condition_variable cv;
  auto report = [&](const caf::expected<rmq::client_send_result>& res) {
    if (res) {
      ++ok;
      return;
    }
    // The first failures say why; the count says how many.
    if (failed++ < 5)
      std::cerr << "send failed: " << rmq::describe(res.error()) << std::endl;
  };
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < cfg.count; ++i) {
    rmq::client_message msg;
    msg.topic = cfg.topic;
    msg.tags = cfg.tags;
    msg.keys = "key-" + std::to_string(i);
    msg.body = std::string(static_cast<size_t>(cfg.size), 'x');
    if (cfg.mode == "sync") {
      auto res = p->send(msg);
      report(res);
      if (res && i == 0)
        std::cout << "first: " << res->msg_id << " on "
                  << res->queue.broker_name << " queue " << res->queue.queue_id
                  << " offset " << res->queue_offset << std::endl;
    } else if (cfg.mode == "async") {
      p->send_async(std::move(msg),
                    [&](caf::expected<rmq::client_send_result> res) {
                      report(res);
                      std::lock_guard<std::mutex> guard{mtx};
                      cv.notify_all();
                    });
    } else {
      p->send_oneway(std::move(msg));
      ++ok;
    }
  }
  if (cfg.mode == "async") {
    std::unique_lock<std::mutex> guard{mtx};
    cv.wait(guard, [&] { return ok + failed == cfg.count; });
  }
  auto secs
    = std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
        .count();
  p->shutdown();
  std::cout << cfg.mode << ": " << ok << " sent, " << failed << " failed in "
            << secs << " s";
  if (secs > 0)
    std::cout << " (" << static_cast<int64_t>(ok / secs) << " msg/s)";
  std::cout << std::endl;
  return failed == 0 ? 0 : 1;
}
