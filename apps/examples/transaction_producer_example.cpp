// A transaction producer (actors/client/producer/transaction_producer.hpp): sends
// --count messages in transactions; the local transaction of every third
// commits, of the next rolls back, and of the one after stays unknown, so
// the broker checks it back later and the listener's check commits it.
// Consumers of the topic see the committed ones only (2 of every 3).
//
// How to run (a NameServer, a broker, the topic, then this):
//   build/rmq-node --role=namesrv --port=9886 &
//   build/rmq-node --role=broker --namesrv=127.0.0.1:9886 --port=10921
//     --store-dir=/tmp/rmq-a &                                  (one line)
//   build/rmq-admin -n 127.0.0.1:9886 updateTopic -b 127.0.0.1:10921
//     -t TxnTopic                                               (one line)
//   build/transaction_producer_example --namesrv=127.0.0.1:9886
//     --topic=TxnTopic --count=30 --linger-s=90                 (one line)
// It stays up to --linger-s seconds (or until every unknown one was
// checked back) to answer the broker's check-backs: RocketMQ's broker
// checks a half message first after its transaction timeout (6 s) at its
// next check round (every 30 s). Watch them with
//   build/push_consumer_example --namesrv=127.0.0.1:9886 --topic=TxnTopic
//     --group=TxnReaders                                        (one line)
// The demo cluster (build/rmq-demo) works too: pass its NameServers.
#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "caf/actor_system.hpp"

#include <rmq/errors.hpp>
#include <rmq/node_config.hpp>
#include <rmq/option_parser.hpp>
#include <rmq/transaction_producer.hpp>

namespace {

/// Remembers each transaction's outcome by its key, as a program keeps it
/// in its own database (RocketMQ's example TransactionListenerImpl).
class example_listener : public rmq::transaction_listener {
public:
  rmq::transaction_state
  execute_local_transaction(const rmq::client_message& msg,
                            const std::string& arg) override {
    auto n = std::stoi(arg);
    auto state = n % 3 == 0   ? rmq::transaction_state::commit
                 : n % 3 == 1 ? rmq::transaction_state::rollback
                              : rmq::transaction_state::unknown;
    std::lock_guard<std::mutex> guard{mtx_};
    local_[msg.keys] = state;
    return state;
  }

  rmq::transaction_state
  check_local_transaction(const rmq::received_message& msg) override {
    ++checks;
    std::lock_guard<std::mutex> guard{mtx_};
    auto i = local_.find(msg.keys);
    auto state = rmq::transaction_state::rollback;
    if (i != local_.end()) {
      // The unknown ones finish now, committed.
      if (i->second == rmq::transaction_state::unknown)
        i->second = rmq::transaction_state::commit;
      state = i->second;
    }
    std::cout << "check-back of " << msg.keys << " (" << msg.msg_id
              << "): " << rmq::to_string(state) << std::endl;
    return state;
  }

  std::atomic<int> checks{0};

private:
  std::mutex mtx_;
  std::map<std::string, rmq::transaction_state> local_;
};

} // namespace

int main(int argc, char** argv) {
  std::string namesrv = "127.0.0.1:9886";
  std::string topic = "TxnTopic";
  int count = 30;
  int linger_s = 90;
  rmq::option_parser opts{"transaction_producer_example"};
  opts.add("namesrv", namesrv, "NameServer list, host:port;host:port");
  opts.add("topic", topic, "topic to send to");
  opts.add("count", count, "transactions to run");
  opts.add("linger-s", linger_s,
           "seconds to stay up for check-backs (0: exit at once)");
  if (auto rc = opts.parse(argc, argv); rc >= 0)
    return rc;
  rmq::node_config cfg; // registers rmq's message types
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << why << '\n';
    return 1;
  }
  caf::actor_system sys{cfg};
  rmq::transaction_producer_config tcfg;
  tcfg.producer.group = "ExampleTransactionGroup";
  tcfg.producer.client.namesrv = namesrv;
  auto listener = std::make_shared<example_listener>();
  auto producer = rmq::spawn_transaction_producer(sys, tcfg, listener);
  if (!producer) {
    std::cerr << "cannot start: " << rmq::describe(producer.error()) << '\n';
    return 1;
  }
  int failures = 0;
  int unknown = 0;
  for (int i = 0; i < count; ++i) {
    rmq::client_message msg;
    msg.topic = topic;
    msg.tags = "TagTxn";
    msg.keys = "txn-" + std::to_string(i);
    msg.body = "transactional message " + std::to_string(i);
    auto res = producer->send_in_transaction(msg, std::to_string(i));
    if (!res) {
      std::cout << msg.keys << ": failed: " << rmq::describe(res.error())
                << '\n';
      ++failures;
      continue;
    }
    auto state = static_cast<rmq::transaction_state>(res->local_state);
    if (state == rmq::transaction_state::unknown)
      ++unknown;
    std::cout << msg.keys << ": msgId=" << res->send.msg_id
              << " broker=" << res->send.queue.broker_name
              << " queue=" << res->send.queue.queue_id
              << " offset=" << res->send.queue_offset << " local "
              << rmq::to_string(state) << '\n';
  }
  std::cout << "waiting up to " << linger_s << " s for " << unknown
            << " check-backs" << std::endl;
  auto until = std::chrono::steady_clock::now()
               + std::chrono::seconds{linger_s};
  while (listener->checks < unknown && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
  std::cout << listener->checks << " check-backs answered" << std::endl;
  producer->shutdown();
  return failures == 0 ? 0 : 1;
}
