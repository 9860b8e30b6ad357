// mqadmin's sendMessage: sends through a real producer actor (the one a
// program gets from actors/client/producer/producer.hpp), so it takes the same
// route, retry and fault path as any program.
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <string>

#include "actors/client/producer/producer.hpp"
#include "apps/rmq-admin/broker_targets.hpp"
#include "messages/common/errors.hpp"

namespace rmq::admin {

namespace {

void print_row(const std::string& broker, const std::string& qid,
               const std::string& status, const std::string& msg_id,
               const std::string& offset_msg_id, const std::string& offset) {
  // mqadmin's columns, with offsetMsgId and queue offset added.
  std::printf("%-32s  %-4s  %-20s    %-32s  %-32s  %s\n", broker.c_str(),
              qid.c_str(), status.c_str(), msg_id.c_str(),
              offset_msg_id.c_str(), offset.c_str());
}

std::string namesrv_list(const admin_args& args) {
  std::string out;
  for (auto& addr : args.namesrvs) {
    if (!out.empty())
      out += ';';
    out += addr.to_string();
  }
  return out;
}

} // namespace

int send_message_cmd(const command_env& env) {
  auto& args = env.args;
  int64_t count = 1;
  if (args.opts.count('N') && !int_opt(env, 'N', count))
    return 2;
  if (count < 1) {
    std::cerr << "rmq-admin: sendMessage: -n needs a count of at least 1\n";
    return 2;
  }
  int64_t queue_id = -1;
  if (args.opts.count('i')) {
    if (args.opt('b').empty()) {
      std::cerr << "rmq-admin: sendMessage: broker name (-b) must be set "
                   "if the queue (-i) is chosen\n";
      return 2;
    }
    if (!int_opt(env, 'i', queue_id))
      return 2;
  }
  producer_config cfg;
  // mqadmin names the group after the current time; one group per run.
  cfg.group = "RMQ_ADMIN_PRODUCER";
  cfg.client.namesrv = namesrv_list(args);
  cfg.client.connect_timeout = args.timeout;
  cfg.client.request_timeout = args.timeout;
  cfg.send_timeout = args.timeout;
  auto prod = spawn_producer(env.sys, cfg);
  if (!prod)
    return env.fail(prod.error());
  client_message msg;
  msg.topic = args.opt('t');
  msg.body = args.opt('p');
  msg.keys = args.opt('k');
  msg.tags = args.opt('c');
  print_row("#Broker Name", "#QID", "#Send Result", "#MsgId", "#OffsetMsgId",
            "#QueueOffset");
  int failed = 0;
  for (int64_t i = 0; i < count; ++i) {
    caf::expected<client_send_result> res{caf::error{}};
    if (queue_id >= 0)
      res = prod->send_to(msg, message_queue{msg.topic, args.opt('b'),
                                             static_cast<int32_t>(queue_id)});
    else
      res = prod->send(msg);
    if (res) {
      print_row(res->queue.broker_name, std::to_string(res->queue.queue_id),
                to_string(static_cast<send_status>(res->status)), res->msg_id,
                res->offset_msg_id, std::to_string(res->queue_offset));
    } else {
      ++failed;
      print_row("Unknown", "Unknown", "Failed", "None", "None", "None");
      std::cerr << "rmq-admin: sendMessage: " << describe(res.error()) << '\n';
    }
    std::fflush(stdout);
  }
  prod->shutdown();
  return failed == 0 ? 0 : 1;
}

} // namespace rmq::admin
