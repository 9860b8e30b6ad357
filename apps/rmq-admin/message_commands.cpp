// mqadmin's message commands: look a message up by id, key or queue offset,
// or print a topic's messages. Every one prints messages through
// format_message (broker_formatters.hpp).
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "apps/rmq-admin/broker_formatters.hpp"
#include "apps/rmq-admin/broker_targets.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_id.hpp"

namespace rmq::admin {

namespace {

// RocketMQ MixAll.TOOLS_CONSUMER_GROUP: pulls that never commit.
constexpr char tools_group[] = "TOOLS_CONSUMER";

// One connection per command and broker address.
struct broker_pool {
  const command_env& env;
  std::map<std::string, std::unique_ptr<broker_client>> clients;

  template <class Result, class Request>
  caf::expected<Result> ask(const std::string& addr, Request req) {
    auto& client = clients[addr];
    if (!client) {
      auto fresh = std::make_unique<broker_client>(env.sys, env.args.timeout);
      if (auto err = fresh->connect(addr))
        return make_error(errc::service_not_available,
                          "cannot connect to broker " + addr + ": "
                            + describe(err));
      client = std::move(fresh);
    }
    auto res = client->template ask<Result>(std::move(req));
    if (!res)
      return at_broker(addr, res.error());
    return res;
  }
};

// The messages of `topic` with key (or UNIQ_KEY) `key` on every broker of
// the topic; each once.
caf::expected<std::vector<record_view>>
query_by_key(const command_env& env, broker_pool& pool,
             const std::string& topic, const std::string& key,
             std::vector<query_message_result>& keep) {
  auto targets = topic_brokers(env, topic);
  if (!targets)
    return std::move(targets.error());
  keep.reserve(targets->size());
  std::vector<record_view> out;
  std::set<std::string> seen;
  for (auto& target : *targets) {
    query_message_request req;
    req.topic = topic;
    req.key = key;
    auto res = pool.ask<query_message_result>(target.addr, req);
    if (!res)
      return std::move(res.error());
    keep.push_back(std::move(*res));
    auto recs = decode_records(keep.back().buffer);
    if (!recs)
      return std::move(recs.error());
    for (auto& rec : *recs)
      if (seen.insert(offset_msg_id_of(rec)).second)
        out.push_back(rec);
  }
  return out;
}

} // namespace

// An offsetMsgId names the broker (store host) and commit-log offset: one
// view there. Anything else (or an offsetMsgId whose broker does not have
// it) is taken as a UNIQ_KEY and looked up through the index on every
// broker of -t TOPIC, as mqadmin's queryMessageByUniqKey.
int query_msg_by_id_cmd(const command_env& env) {
  auto id = env.args.opt('i');
  auto topic = env.args.opt('t');
  broker_pool pool{env, {}};
  caf::error view_err;
  auto decoded = decode_offset_msg_id(id);
  // A UNIQ_KEY decodes too, but its "port" holds the producer's pid and
  // hash: beyond any port unless the pid is 0.
  if (decoded && decoded->port > 0 && decoded->port <= 65535) {
    // The store host is the broker's remoting address; we ask its CAF one.
    auto addr = caf_addr_of(env, ipv4_to_string(decoded->ip) + ":"
                                   + std::to_string(decoded->port));
    auto res = pool.ask<std::string>(addr,
                                     view_message_request{decoded->offset});
    if (res) {
      auto recs = decode_records(*res);
      if (!recs)
        return env.fail(recs.error());
      for (auto& rec : *recs)
        std::cout << format_message(rec);
      std::cout << std::flush;
      return 0;
    }
    view_err = std::move(res.error());
  }
  if (topic.empty()) {
    if (view_err)
      return env.fail(view_err);
    return usage_fail(env, "'" + id
                             + "' is no offsetMsgId; give -t TOPIC to look "
                               "it up as a UNIQ_KEY");
  }
  std::vector<query_message_result> keep;
  auto recs = query_by_key(env, pool, topic, id, keep);
  if (!recs)
    return env.fail(recs.error());
  bool found = false;
  for (auto& rec : *recs) {
    if (msg_id_of(rec) != id)
      continue;
    if (found)
      std::cout << '\n';
    found = true;
    std::cout << format_message(rec);
  }
  std::cout << std::flush;
  if (!found)
    return env.fail(
      make_error(errc::query_not_found,
                 "no message with id " + id + " in topic " + topic));
  return 0;
}

int query_msg_by_key_cmd(const command_env& env) {
  broker_pool pool{env, {}};
  std::vector<query_message_result> keep;
  auto recs = query_by_key(env, pool, env.args.opt('t'), env.args.opt('k'),
                           keep);
  if (!recs)
    return env.fail(recs.error());
  std::cout << format_message_table(*recs) << std::flush;
  return 0;
}

namespace {

// One pull that never commits and never waits.
caf::expected<pull_message_result>
pull_once(broker_pool& pool, const std::string& addr, const std::string& topic,
          int32_t queue_id, int64_t offset, int32_t max, std::string sub) {
  pull_message_request req;
  req.consumer_group = tools_group;
  req.topic = topic;
  req.queue_id = queue_id;
  req.queue_offset = offset;
  req.max_msg_nums = max;
  req.sys_flag = 0;
  req.suspend_timeout_ms = 0;
  req.subscription = std::move(sub);
  return pool.ask<pull_message_result>(addr, std::move(req));
}

} // namespace

int query_msg_by_offset_cmd(const command_env& env) {
  auto topic = env.args.opt('t');
  auto broker = env.args.opt('b');
  int64_t queue_id = 0;
  int64_t offset = 0;
  if (!int_opt(env, 'i', queue_id) || !int_opt(env, 'o', offset))
    return 2;
  auto route = topic_route(env, topic);
  if (!route)
    return env.fail(route.error());
  auto addr = master_of(*route, broker);
  if (!addr)
    return env.fail(addr.error());
  broker_pool pool{env, {}};
  auto res = pull_once(pool, *addr, topic, static_cast<int32_t>(queue_id),
                       offset, 1, "*");
  if (!res)
    return env.fail(res.error());
  auto status = static_cast<pull_status>(res->status);
  if (status != pull_status::found)
    return env.fail(make_error(errc::query_not_found,
                               "no message at offset " + std::to_string(offset)
                                 + " of queue " + std::to_string(queue_id)
                                 + " (" + to_string(status) + ", queue holds ["
                                 + std::to_string(res->min_offset) + ", "
                                 + std::to_string(res->max_offset) + "))"));
  auto recs = decode_records(res->buffer);
  if (!recs)
    return env.fail(recs.error());
  if (!recs->empty())
    std::cout << format_message(recs->front());
  std::cout << std::flush;
  return 0;
}

int print_msg_cmd(const command_env& env) {
  auto topic = env.args.opt('t');
  auto sub = env.args.opts.count('s') > 0 ? env.args.opt('s')
                                          : std::string{"*"};
  auto print_body = bool_opt(env, 'd', true);
  int64_t begin = 0;
  int64_t end = 0;
  auto has_begin = env.args.opts.count('b') > 0;
  auto has_end = env.args.opts.count('e') > 0;
  if (has_begin && !parse_admin_time(env.args.opt('b'), begin))
    return usage_fail(env, "-b needs ms since the epoch or "
                           "yyyy-MM-dd#HH:mm:ss:SSS");
  if (has_end && !parse_admin_time(env.args.opt('e'), end))
    return usage_fail(env, "-e needs ms since the epoch or "
                           "yyyy-MM-dd#HH:mm:ss:SSS");
  auto route = topic_route(env, topic);
  if (!route)
    return env.fail(route.error());
  auto queues = route->queue_datas;
  std::sort(queues.begin(), queues.end(),
            [](const queue_data& x, const queue_data& y) {
              return x.broker_name < y.broker_name;
            });
  broker_pool pool{env, {}};
  int rc = 0;
  for (auto& qd : queues) {
    auto addr = master_of(*route, qd.broker_name);
    if (!addr) {
      rc = env.fail(addr.error());
      continue;
    }
    for (int32_t qid = 0; qid < qd.read_queue_nums; ++qid) {
      auto mq = "MessageQueue [topic=" + topic + ", brokerName="
                + qd.broker_name + ", queueId=" + std::to_string(qid) + "]";
      auto bounds = pool.ask<queue_offsets>(*addr,
                                            get_offset_request{topic, qid});
      if (!bounds) {
        rc = env.fail(bounds.error());
        continue;
      }
      auto min = bounds->min_offset;
      auto max = bounds->max_offset;
      if (has_begin) {
        auto x = pool.ask<int64_t>(*addr,
                                   search_offset_request{topic, qid, begin});
        if (!x) {
          rc = env.fail(x.error());
          continue;
        }
        min = *x;
      }
      if (has_end) {
        auto x = pool.ask<int64_t>(*addr,
                                   search_offset_request{topic, qid, end});
        if (!x) {
          rc = env.fail(x.error());
          continue;
        }
        max = *x;
      }
      std::cout << "minOffset=" << min << ", maxOffset=" << max << ", " << mq
                << '\n';
      for (auto offset = min; offset < max;) {
        auto res = pull_once(pool, *addr, topic, qid, offset, 32, sub);
        if (!res) {
          rc = env.fail(res.error());
          break;
        }
        auto status = static_cast<pull_status>(res->status);
        // A pull that moves nothing on would loop forever.
        auto next = std::max(res->next_begin_offset, offset + 1);
        if (status == pull_status::found) {
          auto recs = decode_records(res->buffer);
          if (!recs) {
            rc = env.fail(recs.error());
            break;
          }
          for (auto& rec : *recs)
            if (rec.queue_offset < max)
              std::cout << format_message(rec, print_body) << '\n';
        } else if (status == pull_status::no_matched_msg) {
          std::cout << mq << " no matched msg. status=" << to_string(status)
                    << ", offset=" << res->next_begin_offset << '\n';
        } else {
          std::cout << mq << " print msg finished. status=" << to_string(status)
                    << ", offset=" << res->next_begin_offset << '\n';
          break;
        }
        offset = next;
      }
      std::cout << "--------------------------------------------------------\n";
    }
  }
  std::cout << std::flush;
  return rc;
}

} // namespace rmq::admin
