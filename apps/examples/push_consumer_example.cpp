// A push consumer: prints every message of a topic it consumes, commits
// its offsets and leaves its group on SIGINT / SIGTERM or after --count
// messages.
//
// How to run (a NameServer, a broker, some messages, this consumer):
//   build/rmq-node --role=namesrv --port=9886 &
//   build/rmq-node --role=broker --namesrv=127.0.0.1:9886 --port=10921
//     --store-dir=/tmp/rmq-a &                                  (one line)
//   build/rmq-admin -n 127.0.0.1:9886 updateTopic -b 127.0.0.1:10921
//     -t TopicTest                                              (one line)
//   build/push_consumer_example --namesrv=127.0.0.1:9886 --topic=TopicTest
//     --group=ExampleGroup --count=10                           (one line)
// and send to TopicTest (rmq-admin sendMessage, or producer_example). Each
// message is printed as "broker:queue offset: body [tags]"; with
// --print=ids as one machine-readable line "msg msgId broker queue offset
// reconsumeTimes bornMs consumedMs keys" (tests and rmq-demo read those).
// --orderly consumes each queue in order under the broker's lock;
// --broadcast gives every member of the group every message.
// Start two with the same --group: the rebalance service splits the
// queues between them (AVG), and each prints only its own.
// --poll-namesrv-ms and --rebalance-interval-ms shorten RocketMQ's 30 s / 20 s, so
// a restarted broker's queues are read again soon (rmq-demo uses them).
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <mutex>
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
  std::string topic = "TopicTest";
  std::string tags = "*";
  std::string group = "ExampleGroup";
  std::string from = "last";
  int64_t count = 0;
  int threads = 4;
  std::string print = "body";
  bool orderly = false;
  bool broadcast = false;
  int64_t poll_namesrv_ms = 30000;
  std::string offset_dir;
  int64_t rebalance_interval_ms = 20'000;
  int64_t lock_renew_interval_ms = 20'000;

  config() {
    opt_group{custom_options_, "global"}
      .add(namesrv, "namesrv", "NameServers, 'host:port;host:port'")
      .add(topic, "topic", "topic to consume")
      .add(tags, "tags", "tag expression, '*' or 'TagA || TagB'")
      .add(group, "group", "consumer group")
      .add(from, "from", "a new group starts at 'first' or 'last'")
      .add(count, "count", "stop after this many messages (0: SIGINT)")
      .add(threads, "threads", "consume workers")
      .add(print, "print", "'body' or 'ids' (one machine-readable line)")
      .add(orderly, "orderly", "consume each queue in order (queue locks)")
      .add(broadcast, "broadcast", "every member gets every message")
      .add(poll_namesrv_ms, "poll-namesrv-ms",
           "route refresh interval (RocketMQ pollNameServerInterval)")
      .add(offset_dir, "offset-dir",
           "broadcasting: local offsets directory (~/.rocketmq_offsets)")
      .add(rebalance_interval_ms, "rebalance-interval-ms",
           "periodic rebalance (ms)")
      .add(lock_renew_interval_ms, "lock-renew-interval-ms",
           "orderly: queue lock renewal (ms)");
  }
};

} // namespace

// Not CAF_MAIN: CAF 0.17's exec_main drops caf_main's exit code.
int main(int argc, char** argv) {
  // Before CAF starts its threads (<rmq/program_start.hpp>).
  auto signals = rmq::block_shutdown_signals();
  config cfg;
  if (auto rc = rmq::read_config(cfg, argc, argv, "push_consumer_example");
      rc >= 0)
    return rc;
  caf::actor_system sys{cfg};
  rmq::push_consumer_config pc;
  pc.client.namesrv = cfg.namesrv;
  pc.group = cfg.group;
  pc.subscriptions = {{cfg.topic, cfg.tags}};
  pc.consume_threads = cfg.threads;
  pc.client.poll_namesrv_interval
    = std::chrono::milliseconds{cfg.poll_namesrv_ms};
  // The instance's rebalance service runs the rounds (docs/consumer.md).
  pc.client.rebalance_interval
    = std::chrono::milliseconds{cfg.rebalance_interval_ms};
  pc.rebalance_interval = pc.client.rebalance_interval;
  if (cfg.from == "first")
    pc.from_where = rmq::consume_from_where::consume_from_first_offset;
  if (cfg.broadcast)
    pc.model = rmq::message_model::broadcasting;
  pc.offset_dir = cfg.offset_dir;
  pc.lock_renew_interval
    = std::chrono::milliseconds{cfg.lock_renew_interval_ms};
  std::mutex out;
  std::atomic<int64_t> consumed{0};
  bool ids = cfg.print == "ids";
  auto print = [&](const std::vector<rmq::received_message>& batch) {
    std::lock_guard<std::mutex> guard{out};
    for (auto& m : batch) {
      if (ids) {
        auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
        std::cout << "msg " << m.msg_id << ' ' << m.broker_name << ' '
                  << m.queue_id << ' ' << m.queue_offset << ' '
                  << m.reconsume_times << ' ' << m.born_timestamp << ' ' << now
                  << ' ' << (m.keys.empty() ? "-" : m.keys) << '\n';
      } else {
        std::cout << m.broker_name << ":" << m.queue_id << " " << m.queue_offset
                  << ": " << m.body;
        if (!m.tags.empty())
          std::cout << " [" << m.tags << "]";
        std::cout << '\n';
      }
      ++consumed;
    }
    std::cout << std::flush;
  };
  auto consumer = cfg.orderly
                    ? rmq::spawn_push_consumer(
                      sys, pc,
                      rmq::orderly_listener{
                        [&](const std::vector<rmq::received_message>& batch) {
                          print(batch);
                          return rmq::orderly_status::success;
                        }})
                    : rmq::spawn_push_consumer(
                      sys, pc,
                      rmq::concurrent_listener{
                        [&](const std::vector<rmq::received_message>& batch) {
                          print(batch);
                          return rmq::consume_status::consume_success;
                        }});
  if (!consumer) {
    std::cerr << "push_consumer_example: " << rmq::describe(consumer.error())
              << std::endl;
    return 1;
  }
  timespec tick{0, 200 * 1000 * 1000};
  while (true) {
    if (sigtimedwait(&signals, nullptr, &tick) > 0)
      break;
    if (cfg.count > 0 && consumed >= cfg.count)
      break;
  }
  consumer->shutdown();
  std::cerr << "consumed " << consumed << " message(s)" << std::endl;
  return 0;
}
