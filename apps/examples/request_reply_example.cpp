// Request-reply between two processes (docs/request-reply.md): a
// requester sends requests with the producer API and waits for each
// reply; a replier consumes the requests with a push consumer and answers
// each with create_reply_message and a producer. The broker pushes every
// reply straight to the requesting client.
//
// How to run (a NameServer, a broker, the topic, a replier, a requester):
//   build/rmq-node --role=namesrv --port=9886 &
//   build/rmq-node --role=broker --namesrv=127.0.0.1:9886 --port=10921
//     --store-dir=/tmp/rmq-a &                                  (one line)
//   build/rmq-admin -n 127.0.0.1:9886 updateTopic -b 127.0.0.1:10921
//     -t RequestTopic                                           (one line)
//   build/request_reply_example --role=replier --topic=RequestTopic &
//   build/request_reply_example --role=requester --topic=RequestTopic
//     --count=5 --timeout-ms=3000                               (one line)
// The requester prints "reply <request body> -> <reply body>" per request
// (or "failed <request body>: <error>", e.g. rmq::request_timeout when no
// replier runs) and exits 0 only if every request got its reply; --async
// sends them all at once with request_async. The replier prints
// "replied <request body>" per request it answered and stops on SIGINT /
// SIGTERM or after --count replies.
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include "caf/actor_system.hpp"

#include <rmq/consumer.hpp>
#include <rmq/errors.hpp>
#include <rmq/node_config.hpp>
#include <rmq/producer.hpp>
#include <rmq/program_start.hpp>
#include <rmq/reply_message.hpp>

namespace {

struct config : rmq::node_config {
  std::string role = "requester";
  std::string namesrv = "127.0.0.1:9886";
  std::string topic = "RequestTopic";
  std::string group = "RequestReplyGroup";
  int64_t count = 1;
  int64_t timeout_ms = 3000;
  bool async = false;

  config() {
    opt_group{custom_options_, "global"}
      .add(role, "role", "'requester' or 'replier'")
      .add(namesrv, "namesrv", "NameServers, 'host:port;host:port'")
      .add(topic, "topic", "topic of the requests")
      .add(group, "group",
           "replier: consumer group; both: producer group "
           "prefix")
      .add(count, "count", "requests to send / replies to send (0: SIGINT)")
      .add(timeout_ms, "timeout-ms", "requester: timeout of each request")
      .add(async, "async", "requester: all requests at once, async");
  }
};

void print_result(std::mutex& out, const std::string& body,
                  const caf::expected<rmq::received_message>& reply) {
  std::lock_guard<std::mutex> guard{out};
  if (reply)
    std::cout << "reply " << body << " -> " << reply->body << std::endl;
  else
    std::cout << "failed " << body << ": " << rmq::describe(reply.error())
              << std::endl;
}

int requester(caf::actor_system& sys, const config& cfg) {
  rmq::producer_config pc;
  pc.group = cfg.group + "-requester";
  pc.client.namesrv = cfg.namesrv;
  auto producer = rmq::spawn_producer(sys, pc);
  if (!producer) {
    std::cerr << "request_reply_example: " << rmq::describe(producer.error())
              << std::endl;
    return 1;
  }
  auto timeout = std::chrono::milliseconds{cfg.timeout_ms};
  std::mutex out;
  int64_t ok = 0;
  if (!cfg.async) {
    for (int64_t i = 0; i < cfg.count; ++i) {
      rmq::client_message msg;
      msg.topic = cfg.topic;
      msg.body = "q" + std::to_string(i);
      auto reply = producer->request(msg, timeout);
      print_result(out, msg.body, reply);
      ok += reply ? 1 : 0;
    }
  } else {
    std::condition_variable cv;
    int64_t done = 0;
    for (int64_t i = 0; i < cfg.count; ++i) {
      rmq::client_message msg;
      msg.topic = cfg.topic;
      msg.body = "q" + std::to_string(i);
      auto body = msg.body;
      producer->request_async(
        std::move(msg), timeout,
        [&, body](caf::expected<rmq::received_message> reply) {
          print_result(out, body, reply);
          std::lock_guard<std::mutex> guard{out};
          ok += reply ? 1 : 0;
          ++done;
          cv.notify_all();
        });
    }
    std::unique_lock<std::mutex> guard{out};
    cv.wait(guard, [&] { return done == cfg.count; });
  }
  producer->shutdown();
  return ok == cfg.count ? 0 : 1;
}

int replier(caf::actor_system& sys, const config& cfg) {
  auto signals = rmq::shutdown_signals();
  rmq::producer_config pc;
  pc.group = cfg.group + "-replier";
  pc.client.namesrv = cfg.namesrv;
  auto producer = rmq::spawn_producer(sys, pc);
  if (!producer) {
    std::cerr << "request_reply_example: " << rmq::describe(producer.error())
              << std::endl;
    return 1;
  }
  rmq::push_consumer_config cc;
  cc.client.namesrv = cfg.namesrv;
  cc.group = cfg.group;
  cc.subscriptions = {{cfg.topic, "*"}};
  // Requests sent before the replier's first rebalance are answered too.
  cc.from_where = rmq::consume_from_where::consume_from_first_offset;
  std::mutex out;
  std::atomic<int64_t> replied{0};
  auto listener = [&](const std::vector<rmq::received_message>& batch) {
    for (auto& request : batch) {
      auto reply = rmq::create_reply_message(request,
                                             "reply to " + request.body);
      if (!reply) {
        // Not a request: nothing to answer.
        std::lock_guard<std::mutex> guard{out};
        std::cerr << "skipped: " << rmq::describe(reply.error()) << std::endl;
        continue;
      }
      auto sent = producer->send(*reply);
      std::lock_guard<std::mutex> guard{out};
      if (!sent) {
        std::cout << "reply failed " << request.body << ": "
                  << rmq::describe(sent.error()) << std::endl;
        continue;
      }
      std::cout << "replied " << request.body << std::endl;
      ++replied;
    }
    return rmq::consume_status::consume_success;
  };
  auto consumer = rmq::spawn_push_consumer(sys, cc,
                                           rmq::concurrent_listener{listener});
  if (!consumer) {
    std::cerr << "request_reply_example: " << rmq::describe(consumer.error())
              << std::endl;
    return 1;
  }
  {
    std::lock_guard<std::mutex> guard{out};
    std::cout << "replier ready" << std::endl;
  }
  timespec tick{0, 200 * 1000 * 1000};
  while (true) {
    if (sigtimedwait(&signals, nullptr, &tick) > 0)
      break;
    if (cfg.count > 0 && replied >= cfg.count)
      break;
  }
  consumer->shutdown();
  producer->shutdown();
  return 0;
}

} // namespace

// Not CAF_MAIN: CAF 0.17's exec_main drops caf_main's exit code.
int main(int argc, char** argv) {
  // Before CAF starts its threads (<rmq/program_start.hpp>); both
  // roles wait on the same set later (shutdown_signals).
  rmq::block_shutdown_signals();
  config cfg;
  if (auto rc = rmq::read_config(cfg, argc, argv, "request_reply_example");
      rc >= 0)
    return rc;
  if (cfg.role != "requester" && cfg.role != "replier") {
    std::cerr << "request_reply_example: --role is 'requester' or 'replier'"
              << std::endl;
    return 2;
  }
  caf::actor_system sys{cfg};
  return cfg.role == "replier" ? replier(sys, cfg) : requester(sys, cfg);
}
