// A lite pull consumer (RocketMQ DefaultLitePullConsumer): the program
// polls for messages in its own loop instead of being called back.
//
// How to run (a NameServer, a broker, a topic with some messages, then
// this):
//   build/rmq-node --role=namesrv --port=9886 &
//   build/rmq-node --role=broker --namesrv=127.0.0.1:9886 --port=10921
//     --store-dir=/tmp/rmq-a &                                  (one line)
//   build/producer_example --namesrv=127.0.0.1:9886 --topic=ExampleTopic
//   build/pull_consumer_example --namesrv=127.0.0.1:9886
//     --topic=ExampleTopic --group=ExamplePullGroup --count=10  (one line)
// Subscribe mode (the default): the rebalance service gives this consumer
// its share of the topic's queues; poll() returns what was fetched; the
// offsets are committed automatically every 5 s and at the end.
// Assign mode: --assign=broker-a:0,broker-a:1 reads exactly these queues
// (no rebalance), and --seek=N starts each of them at offset N.
// Each message is printed as "broker:queue offset: body [tags]". Stops
// once it printed --count messages (whole polled batches), after --idle-ms
// without one, or on SIGINT / SIGTERM.
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "caf/actor_system.hpp"

#include <rmq/consumer.hpp>
#include <rmq/errors.hpp>
#include <rmq/node_config.hpp>
#include <rmq/program_start.hpp>

namespace {

struct config : rmq::node_config {
  std::string namesrv = "127.0.0.1:9886";
  std::string topic = "ExampleTopic";
  std::string tags = "*";
  std::string group = "ExamplePullGroup";
  std::string from = "first";
  std::string assign;
  int64_t seek = -1;
  int64_t count = 0;
  int64_t idle_ms = 10000;

  config() {
    opt_group{custom_options_, "global"}
      .add(namesrv, "namesrv", "NameServers, 'host:port;host:port'")
      .add(topic, "topic", "topic to consume")
      .add(tags, "tags", "tag expression, '*' or 'TagA || TagB'")
      .add(group, "group", "consumer group")
      .add(from, "from", "a new group starts at 'first' or 'last'")
      .add(assign, "assign", "assign mode: 'broker:queue,broker:queue'")
      .add(seek, "seek", "assign mode: start every queue at this offset")
      .add(count, "count", "stop after this many messages (0: no limit)")
      .add(idle_ms, "idle-ms", "stop after this long without a message");
  }
};

// "broker-a:0,broker-a:1" -> queues of `topic`; empty on a bad entry.
std::vector<rmq::message_queue> parse_queues(const std::string& topic,
                                             const std::string& text) {
  std::vector<rmq::message_queue> out;
  std::istringstream in{text};
  std::string item;
  while (std::getline(in, item, ',')) {
    auto colon = item.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
      return {};
    char* end = nullptr;
    auto id = std::strtol(item.c_str() + colon + 1, &end, 10);
    if (*end != '\0' || id < 0)
      return {};
    out.push_back({topic, item.substr(0, colon), static_cast<int32_t>(id)});
  }
  return out;
}

} // namespace

// Not CAF_MAIN: CAF 0.17's exec_main drops caf_main's exit code.
int main(int argc, char** argv) {
  // Before CAF starts its threads (<rmq/program_start.hpp>).
  auto signals = rmq::block_shutdown_signals();
  config cfg;
  if (auto rc = rmq::read_config(cfg, argc, argv, "pull_consumer_example");
      rc >= 0)
    return rc;
  std::vector<rmq::message_queue> queues;
  if (!cfg.assign.empty()) {
    queues = parse_queues(cfg.topic, cfg.assign);
    if (queues.empty()) {
      std::cerr << "pull_consumer_example: bad --assign '" << cfg.assign
                << "' (broker:queue,broker:queue)" << std::endl;
      return 2;
    }
  }
  caf::actor_system sys{cfg};
  rmq::lite_pull_consumer_config lc;
  lc.client.namesrv = cfg.namesrv;
  lc.group = cfg.group;
  lc.auto_commit = true;
  if (cfg.from == "first")
    lc.from_where = rmq::consume_from_where::consume_from_first_offset;
  if (queues.empty())
    lc.subscriptions = {{cfg.topic, cfg.tags}};
  else
    lc.assigned = queues; // assign mode from the start: no rebalance
  auto consumer = rmq::spawn_lite_pull_consumer(sys, lc);
  if (!consumer) {
    std::cerr << "pull_consumer_example: " << rmq::describe(consumer.error())
              << std::endl;
    return 1;
  }
  int rc = 0;
  if (!queues.empty()) {
    // RocketMQ's assign(): replaces the queue set (here the same one; a
    // program may change it at any time), then seek() moves each queue.
    if (auto err = consumer->assign(queues)) {
      std::cerr << "assign: " << rmq::describe(err) << std::endl;
      rc = 1;
    }
    for (auto& q : queues) {
      if (cfg.seek < 0)
        break;
      if (auto err = consumer->seek(q, cfg.seek)) {
        std::cerr << "seek " << q.broker_name << ":" << q.queue_id << ": "
                  << rmq::describe(err) << std::endl;
        rc = 1;
      }
    }
  }
  int64_t consumed = 0;
  auto idle = std::chrono::milliseconds{0};
  auto step = std::chrono::milliseconds{200};
  timespec no_wait{0, 0};
  while (rc == 0 && (cfg.count == 0 || consumed < cfg.count)) {
    if (sigtimedwait(&signals, nullptr, &no_wait) > 0)
      break;
    auto batch = consumer->poll(step);
    if (!batch) {
      std::cerr << "poll: " << rmq::describe(batch.error()) << std::endl;
      rc = 1;
      break;
    }
    if (batch->empty()) {
      idle += step;
      if (idle.count() >= cfg.idle_ms)
        break;
      continue;
    }
    idle = std::chrono::milliseconds{0};
    for (auto& m : *batch) {
      std::cout << m.broker_name << ":" << m.queue_id << " " << m.queue_offset
                << ": " << m.body;
      if (!m.tags.empty())
        std::cout << " [" << m.tags << "]";
      std::cout << '\n';
      ++consumed;
    }
    std::cout << std::flush;
  }
  // Auto-commit also commits at shutdown; commit() is what a program with
  // auto_commit = false calls after it processed a batch.
  if (auto err = consumer->commit()) {
    std::cerr << "commit: " << rmq::describe(err) << std::endl;
    rc = 1;
  }
  consumer->shutdown();
  std::cerr << "consumed " << consumed << " message(s)" << std::endl;
  return rc;
}
