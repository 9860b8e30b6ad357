// Sends --count messages to --topic with a producer, then consumes them
// with a push consumer of a new group from the first offset; prints
// "received N of N" and exits 0 when every body came back, 1 otherwise.
// Only the installed public headers are included.
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <set>
#include <string>

#include <rmq/client.hpp>
#include <rmq/option_parser.hpp>

int main(int argc, char** argv) {
  std::string namesrv = "127.0.0.1:9876";
  std::string topic = "OutsideTopic";
  int64_t count = 10;
  rmq::option_parser opts{"outside_client"};
  opts.add("namesrv", namesrv, "NameServer list, host:port;host:port");
  opts.add("topic", topic, "topic to send to and consume");
  opts.add("count", count, "messages to send and consume");
  if (auto rc = opts.parse(argc, argv); rc >= 0)
    return rc;
  rmq::node_config cfg; // registers rmq's message types
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << why << '\n';
    return 1;
  }
  caf::actor_system sys{cfg};

  rmq::producer_config pcfg;
  pcfg.group = "OutsideProducerGroup";
  pcfg.client.namesrv = namesrv;
  auto producer = rmq::spawn_producer(sys, pcfg);
  if (!producer) {
    std::cerr << "producer: " << rmq::describe(producer.error()) << '\n';
    return 1;
  }
  std::set<std::string> sent;
  for (int64_t i = 0; i < count; ++i) {
    rmq::client_message msg;
    msg.topic = topic;
    msg.body = "outside " + std::to_string(i);
    auto res = producer->send(msg);
    if (!res) {
      std::cerr << "send: " << rmq::describe(res.error()) << '\n';
      return 1;
    }
    sent.insert(msg.body);
  }
  std::cout << "sent " << sent.size() << std::endl;

  std::mutex mx;
  std::condition_variable cv;
  std::set<std::string> received;
  rmq::push_consumer_config pc;
  pc.client.namesrv = namesrv;
  pc.group = "OutsideConsumerGroup";
  pc.subscriptions = {{topic, "*"}};
  pc.from_where = rmq::consume_from_where::consume_from_first_offset;
  auto consumer = rmq::spawn_push_consumer(
    sys, pc,
    rmq::concurrent_listener{
      [&](const std::vector<rmq::received_message>& batch) {
        std::lock_guard<std::mutex> guard{mx};
        for (auto& m : batch)
          received.insert(m.body);
        cv.notify_all();
        return rmq::consume_status::consume_success;
      }});
  if (!consumer) {
    std::cerr << "consumer: " << rmq::describe(consumer.error()) << '\n';
    return 1;
  }
  bool all = false;
  {
    std::unique_lock<std::mutex> guard{mx};
    all = cv.wait_for(guard, std::chrono::seconds{60},
                      [&] { return received == sent; });
  }
  consumer->shutdown();
  std::cout << "received " << received.size() << " of " << sent.size()
            << std::endl;
  return all ? 0 : 1;
}
