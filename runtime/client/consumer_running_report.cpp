#include "runtime/client/consumer_running_report.hpp"

#include <string>

namespace rmq {

namespace {

std::string text(const nlohmann::json& x) {
  return x.is_string() ? x.get<std::string>() : x.dump();
}

template <class T>
T field(const nlohmann::json& x, const char* key, T fallback) {
  auto i = x.find(key);
  if (i == x.end() || i->is_null())
    return fallback;
  try {
    return i->get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

} // namespace

remoting::running_info_report
consumer_running_report(const consumer_data& group,
                        const nlohmann::json& consumer_dump) {
  remoting::running_info_report out;
  auto& p = out.properties;
  // DefaultMQPushConsumer's fields as Java's Properties (MixAll
  // object2Properties), then ConsumerRunningInfo's own keys.
  p["consumerGroup"] = group.group_name;
  p["messageModel"] = text(nlohmann::json(group.model));
  p["consumeFromWhere"] = text(nlohmann::json(group.from_where));
  p["unitMode"] = group.unit_mode ? "true" : "false";
  p["PROP_CONSUME_TYPE"] = text(nlohmann::json(group.type));
  // Our remoting version: V4_9_4 (docs/remoting.md, "Clients").
  p["PROP_CLIENT_VERSION"] = "V4_9_4";
  out.subscriptions = group.subscriptions;
  if (!consumer_dump.is_object())
    return out;
  if (auto i = consumer_dump.find("orderly"); i != consumer_dump.end())
    p["PROP_CONSUMEORDERLY"] = text(*i);
  if (auto i = consumer_dump.find("workers"); i != consumer_dump.end())
    p["PROP_THREADPOOL_CORE_SIZE"] = text(*i);
  auto qs = consumer_dump.find("queues");
  if (qs == consumer_dump.end() || !qs->is_array())
    return out;
  for (auto& row : *qs) {
    if (!row.is_object())
      continue;
    auto mq = row.find("queue");
    if (mq == row.end() || !mq->is_object())
      continue;
    remoting::running_queue_info q;
    q.topic = field<std::string>(*mq, "topic", "");
    q.broker_name = field<std::string>(*mq, "broker_name", "");
    q.queue_id = field<int32_t>(*mq, "queue_id", 0);
    q.commit_offset = field<int64_t>(row, "commit_offset", -1);
    q.cached_count = field<int32_t>(row, "count", 0);
    q.cached_mib
      = static_cast<int32_t>(field<int64_t>(row, "bytes", 0) / (1024 * 1024));
    q.locked = field<bool>(row, "locked", false);
    // The cached range: from the commit offset (the oldest message not
    // done) to the next offset to pull, less one.
    auto next = field<int64_t>(row, "next_offset", 0);
    q.cached_min_offset = q.cached_count > 0 ? q.commit_offset : 0;
    q.cached_max_offset = q.cached_count > 0 ? next - 1 : 0;
    out.queues.push_back(std::move(q));
  }
  return out;
}

} // namespace rmq
