#include "runtime/remoting/consumer_running_info_body.hpp"

#include <nlohmann/json.hpp>

#include "runtime/remoting/client_manage_codec.hpp"

namespace rmq::remoting {

std::string consumer_running_info_body(const running_info_report& x) {
  using json = nlohmann::json;
  // A MessageQueue key: its fields sorted, as fastjson writes a map key.
  std::string table = "{";
  for (auto& q : x.queues) {
    if (table.size() > 1)
      table += ",";
    table += json{{"brokerName", q.broker_name},
                  {"queueId", q.queue_id},
                  {"topic", q.topic}}
               .dump();
    table += ":";
    table += json{
      {"cachedMsgCount", q.cached_count},
      {"cachedMsgMaxOffset", q.cached_max_offset},
      {"cachedMsgMinOffset", q.cached_min_offset},
      {"cachedMsgSizeInMiB", q.cached_mib},
      {"commitOffset", q.commit_offset},
      {"droped", false},
      {"locked", q.locked},
      {"transactionMsgCount", 0},
      {"transactionMsgMaxOffset", 0},
      {"transactionMsgMinOffset", 0},
      {"tryUnlockTimes",
       0}}.dump();
  }
  table += "}";
  auto subs = json::array();
  for (auto& s : x.subscriptions)
    subs.push_back(subscription_json(s));
  // Keys in sorted order: jstack, mqTable, properties, statusTable,
  // subscriptionSet. The per-topic rates (statusTable) are not measured
  // by our clients: the table is empty rather than made up.
  std::string out = "{";
  if (!x.jstack.empty())
    out += "\"jstack\":" + json(x.jstack).dump() + ",";
  out += "\"mqTable\":" + table;
  out += ",\"properties\":" + json(x.properties).dump();
  out += ",\"statusTable\":{}";
  out += ",\"subscriptionSet\":" + subs.dump();
  return out + "}";
}

} // namespace rmq::remoting
