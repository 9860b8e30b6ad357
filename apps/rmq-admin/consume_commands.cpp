// consumeMessage: consumes a topic through a real lite pull consumer
// (subscribe mode, so its group's members share the queues), prints each
// message and commits what it printed. Ends after -c COUNT messages or
// when nothing new arrived for 3 s.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include "actors/client/consumer/consumer.hpp"
#include "apps/rmq-admin/commands.hpp"
#include "messages/common/errors.hpp"

namespace rmq::admin {

namespace {

/// How long a poll waits for a new message before the command ends.
constexpr auto idle_end = std::chrono::seconds{3};

std::string namesrv_list(const admin_args& args) {
  std::string out;
  for (auto& a : args.namesrvs)
    out += (out.empty() ? "" : ";") + a.to_string();
  return out;
}

void print(const received_message& m) {
  std::cout << "msgId=" << m.msg_id << " broker=" << m.broker_name
            << " queue=" << m.queue_id << " offset=" << m.queue_offset
            << " tags=" << m.tags << " keys=" << m.keys
            << " reconsumeTimes=" << m.reconsume_times << " body=" << m.body
            << '\n';
}

} // namespace

int consume_message_cmd(const command_env& env) {
  auto& args = env.args;
  int64_t count = 0;
  if (auto c = args.opt('c'); !c.empty()) {
    char* end = nullptr;
    count = std::strtoll(c.c_str(), &end, 10);
    if (*end != '\0' || count <= 0)
      return env.fail(
        make_error(errc::invalid_parameter, "-c needs a positive count"));
  }
  lite_pull_consumer_config cfg;
  cfg.group = args.opt('g');
  cfg.client.namesrv = namesrv_list(args);
  cfg.client.request_timeout = args.timeout;
  cfg.client.connect_timeout = args.timeout;
  auto expr = args.opt('s');
  cfg.subscriptions = {{args.opt('t'), expr.empty() ? "*" : expr}};
  auto from = args.opt('f');
  if (from.empty() || from == "last")
    cfg.from_where = consume_from_where::consume_from_last_offset;
  else if (from == "first")
    cfg.from_where = consume_from_where::consume_from_first_offset;
  else
    return env.fail(make_error(errc::invalid_parameter, "-f is first or last"));
  // The command commits what it printed, nothing else.
  cfg.auto_commit = false;
  if (count > 0)
    cfg.pull_batch_size = static_cast<int32_t>(std::min<int64_t>(count, 32));
  auto consumer = spawn_lite_pull_consumer(env.sys, cfg);
  if (!consumer)
    return env.fail(consumer.error());
  int64_t printed = 0;
  caf::error failure;
  // The first poll also waits out two connects that time out (a master
  // whose host is gone, tried before its slave) and the rebalance.
  auto wait = idle_end + 2 * args.timeout;
  while (count == 0 || printed < count) {
    auto batch
      = consumer->poll(std::chrono::duration_cast<caf::timespan>(wait));
    wait = idle_end;
    if (!batch) {
      failure = batch.error();
      break;
    }
    if (batch->empty())
      break;
    for (auto& m : *batch) {
      if (count > 0 && printed == count) {
        // Polled but not printed: the commit must not pass it.
        if (auto err
            = consumer->seek(message_queue{m.topic, m.broker_name, m.queue_id},
                             m.queue_offset))
          failure = err;
        break;
      }
      print(m);
      ++printed;
    }
  }
  if (auto err = consumer->commit(); err && !failure)
    failure = err;
  consumer->shutdown();
  std::cout << "consumed " << printed << " message(s)\n";
  if (failure)
    return env.fail(failure);
  return 0;
}

} // namespace rmq::admin
