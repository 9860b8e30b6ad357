#include "apps/rmq-admin/broker_formatters.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/remoting/fastjson_text.hpp"

namespace rmq::admin {

namespace {

std::tm local_tm(int64_t ms) {
  auto secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  return tm;
}

const char* bool_text(bool x) {
  return x ? "true" : "false";
}

// Java's printf("%-Ns", x) with frontStringAtLeast(x, N): never cut.
std::string pad(std::string_view x, size_t width) {
  std::string out{x};
  if (out.size() < width)
    out.append(width - out.size(), ' ');
  return out;
}

std::string host_text(uint32_t ip, uint32_t port) {
  return ipv4_to_string(ip) + ":" + std::to_string(port);
}

// Java's HashMap.toString shape, in stored order: "{k=v, k2=v2}".
std::string properties_text(std::string_view props) {
  std::string out = "{";
  size_t pos = 0;
  bool first = true;
  while (pos < props.size()) {
    auto end = props.find(property_separator, pos);
    if (end == std::string_view::npos)
      end = props.size();
    auto entry = props.substr(pos, end - pos);
    auto sep = entry.find(name_value_separator);
    if (!entry.empty()) {
      if (!first)
        out += ", ";
      first = false;
      if (sep == std::string_view::npos) {
        out.append(entry);
      } else {
        out.append(entry.substr(0, sep));
        out += '=';
        out.append(entry.substr(sep + 1));
      }
    }
    pos = end + 1;
  }
  return out + "}";
}

} // namespace

std::string human_time_ms(int64_t ms) {
  auto tm = local_tm(ms);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d,%03d",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

std::string human_time_s(int64_t ms) {
  auto tm = local_tm(ms);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec);
  return buf;
}

bool parse_admin_time(const std::string& text, int64_t& ms) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return c >= '0' && c <= '9';
      })) {
    if (text.size() > 18)
      return false;
    ms = std::stoll(text);
    return true;
  }
  std::tm tm{};
  int millis = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d#%2d:%2d:%2d:%3d%c", &tm.tm_year,
                  &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec,
                  &millis, &tail)
      != 7)
    return false;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_isdst = -1;
  auto secs = std::mktime(&tm);
  if (secs == static_cast<std::time_t>(-1))
    return false;
  ms = static_cast<int64_t>(secs) * 1000 + millis;
  return true;
}

std::string perm_to_string(int32_t perm) {
  std::string out = "---";
  if ((perm & perm::read) != 0)
    out[0] = 'R';
  if ((perm & perm::write) != 0)
    out[1] = 'W';
  if ((perm & perm::inherit) != 0)
    out[2] = 'X';
  return out;
}

std::string format_topic_config(const topic_config& cfg) {
  std::ostringstream out;
  out << "TopicConfig [topicName=" << cfg.topic_name
      << ", readQueueNums=" << cfg.read_queue_nums
      << ", writeQueueNums=" << cfg.write_queue_nums
      << ", perm=" << perm_to_string(cfg.perm) << ", topicFilterType="
      << (cfg.topic_filter_type == 0 ? "SINGLE_TAG" : "MULTI_TAG")
      << ", topicSysFlag=" << cfg.topic_sys_flag
      << ", order=" << bool_text(cfg.order) << "]";
  return out.str();
}

std::string format_sub_group(const subscription_group_config& cfg) {
  std::ostringstream out;
  out << "SubscriptionGroupConfig{groupName=" << cfg.group_name
      << ", consumeEnable=" << bool_text(cfg.consume_enable)
      << ", consumeFromMinEnable=" << bool_text(cfg.consume_from_min_enable)
      << ", consumeBroadcastEnable=" << bool_text(cfg.consume_broadcast_enable)
      << ", consumeMessageOrderly=" << bool_text(cfg.consume_message_orderly)
      << ", retryQueueNums=" << cfg.retry_queue_nums
      << ", retryMaxTimes=" << cfg.retry_max_times
      << ", brokerId=" << cfg.broker_id << ", whichBrokerWhenConsumeSlowly="
      << cfg.which_broker_when_consume_slowly
      << ", notifyConsumerIdsChangedEnable="
      << bool_text(cfg.notify_consumer_ids_changed_enable) << "}";
  return out.str();
}

std::string format_topic_status(std::vector<topic_stats> stats) {
  struct row {
    std::string broker;
    queue_stats q;
  };
  std::vector<row> rows;
  for (auto& s : stats)
    for (auto& q : s.queues)
      rows.push_back({s.broker_name, q});
  std::sort(rows.begin(), rows.end(), [](const row& x, const row& y) {
    return std::tie(x.broker, x.q.queue_id) < std::tie(y.broker, y.q.queue_id);
  });
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof(line), "%-32s  %-4s  %-20s  %-20s    %s\n",
                "#Broker Name", "#QID", "#Min Offset", "#Max Offset",
                "#Last Updated");
  out << line;
  for (auto& r : rows) {
    auto when = r.q.last_update_timestamp > 0
                  ? human_time_ms(r.q.last_update_timestamp)
                  : std::string{};
    std::snprintf(line, sizeof(line),
                  "%s  %-4d  %-20" PRId64 "  %-20" PRId64 "    %s\n",
                  pad(r.broker, 32).c_str(), r.q.queue_id, r.q.min_offset,
                  r.q.max_offset, when.c_str());
    out << line;
  }
  return out.str();
}

std::string format_broker_status(const broker_runtime_info& info,
                                 const std::string& addr) {
  // std::map: sorted by key, as mqadmin's TreeMap.
  std::ostringstream out;
  for (auto& [key, value] : info.table) {
    if (!addr.empty())
      out << pad(addr, 24) << ' ';
    out << pad(key, 32) << ": " << value << '\n';
  }
  return out.str();
}

std::string format_consumer_connection(const consumer_connection& cc) {
  std::string out;
  char line[512];
  int i = 1;
  for (auto& c : cc.connections) {
    std::snprintf(line, sizeof(line), "%03d  %-32s %-22s %-8s %d\n", i++,
                  c.client_id.c_str(), c.client_addr.c_str(),
                  c.language.c_str(), c.version);
    out += line;
  }
  out += "\nBelow is subscription:\n";
  i = 1;
  for (auto& s : cc.subscriptions) {
    std::snprintf(line, sizeof(line), "%03d  Topic: %-40s SubExpression: %s\n",
                  i++, s.topic.c_str(), s.sub_string.c_str());
    out += line;
  }
  nlohmann::json type = cc.type, model = cc.model, from = cc.from_where;
  out += "\nConsumeType: " + type.get<std::string>() + "\n";
  out += "MessageModel: " + model.get<std::string>() + "\n";
  out += "ConsumeFromWhere: " + from.get<std::string>() + "\n";
  return out;
}

std::string format_consumer_running_info(const std::string& body) {
  std::string err;
  auto info = remoting::read_fastjson(body, err);
  if (!info || !info->is_object())
    return "the client's answer does not read (" + err + "):\n" + body + "\n";
  auto field = [&](const char* key) {
    auto i = info->find(key);
    return i == info->end() ? nlohmann::json::object() : *i;
  };
  auto text = [](const nlohmann::json& x) {
    return x.is_string() ? x.get<std::string>() : x.dump();
  };
  std::string out = "#Consumer Properties#\n";
  char line[1024];
  auto props = field("properties");
  for (auto& [key, value] : props.items()) {
    std::snprintf(line, sizeof(line), "%-40s: %s\n", key.c_str(),
                  text(value).c_str());
    out += line;
  }
  out += "\n\n#Consumer Subscription#\n";
  int i = 1;
  auto sub_set = field("subscriptionSet");
  for (auto& sub : sub_set) {
    std::snprintf(line, sizeof(line),
                  "%03d Topic: %-40s ClassFilter: %-8s SubExpression: %s\n",
                  i++, text(sub.value("topic", nlohmann::json{""})).c_str(),
                  sub.value("classFilterMode", false) ? "true" : "false",
                  text(sub.value("subString", nlohmann::json{""})).c_str());
    out += line;
  }
  // mqTable by MessageQueue order (topic, broker, queue), as Java's
  // TreeMap keeps it.
  using queue_key = std::tuple<std::string, std::string, int64_t>;
  std::map<queue_key, nlohmann::json> queues;
  auto table = field("mqTable");
  for (auto& [key, value] : table.items()) {
    auto mq = nlohmann::json::parse(key, nullptr, false);
    if (!mq.is_object())
      continue;
    queues[{mq.value("topic", ""), mq.value("brokerName", ""),
            mq.value("queueId", int64_t{0})}]
      = value;
  }
  out += "\n\n#Consumer Offset#\n";
  std::snprintf(line, sizeof(line), "%-64s  %-32s  %-4s  %-20s\n", "#Topic",
                "#Broker Name", "#QID", "#Consumer Offset");
  out += line;
  for (auto& [mq, pq] : queues) {
    std::snprintf(line, sizeof(line),
                  "%-32s  %-32s  %-4" PRId64 "  %-20" PRId64 "\n",
                  std::get<0>(mq).c_str(), std::get<1>(mq).c_str(),
                  std::get<2>(mq), pq.value("commitOffset", int64_t{0}));
    out += line;
  }
  out += "\n\n#Consumer MQ Detail#\n";
  std::snprintf(line, sizeof(line), "%-64s  %-32s  %-4s  %-20s\n", "#Topic",
                "#Broker Name", "#QID", "#ProcessQueueInfo");
  out += line;
  for (auto& [mq, pq] : queues) {
    // ProcessQueueInfo#toString, with the fields the client sent.
    std::string detail = "ProcessQueueInfo [";
    bool first = true;
    for (auto key :
         {"commitOffset", "cachedMsgMinOffset", "cachedMsgMaxOffset",
          "cachedMsgCount", "cachedMsgSizeInMiB", "transactionMsgMinOffset",
          "transactionMsgMaxOffset", "transactionMsgCount", "locked",
          "tryUnlockTimes", "lastLockTimestamp", "droped", "lastPullTimestamp",
          "lastConsumeTimestamp"}) {
      if (auto v = pq.find(key); v != pq.end()) {
        detail += (first ? "" : ", ") + std::string{key} + "=" + text(*v);
        first = false;
      }
    }
    detail += "]";
    std::snprintf(line, sizeof(line), "%-64s  %-32s  %-4" PRId64 "  %s\n",
                  std::get<0>(mq).c_str(), std::get<1>(mq).c_str(),
                  std::get<2>(mq), detail.c_str());
    out += line;
  }
  out += "\n\n#Consumer RT&TPS#\n";
  std::snprintf(line, sizeof(line), "%-64s  %14s %14s %14s %14s %18s %25s\n",
                "#Topic", "#Pull RT", "#Pull TPS", "#Consume RT",
                "#ConsumeOK TPS", "#ConsumeFailed TPS",
                "#ConsumeFailedMsgsInHour");
  out += line;
  auto status = field("statusTable");
  for (auto& [topic, st] : status.items()) {
    std::snprintf(line, sizeof(line),
                  "%-64s  %14.2f %14.2f %14.2f %14.2f %18.2f %25" PRId64 "\n",
                  topic.c_str(), st.value("pullRT", 0.0),
                  st.value("pullTPS", 0.0), st.value("consumeRT", 0.0),
                  st.value("consumeOKTPS", 0.0),
                  st.value("consumeFailedTPS", 0.0),
                  st.value("consumeFailedMsgs", int64_t{0}));
    out += line;
  }
  if (auto j = info->find("jstack"); j != info->end() && j->is_string())
    out += "\n\n#Consumer jstack#\n" + j->get<std::string>() + "\n";
  return out;
}

std::string
running_info_analysis(const std::map<std::string, std::string>& bodies) {
  std::optional<std::set<std::string>> subs; // topic + expression
  bool same = true;
  bool clustering = true;
  std::map<std::string, int> holders; // queue key -> members holding it
  for (auto& [id, body] : bodies) {
    std::string err;
    auto info = remoting::read_fastjson(body, err);
    if (!info || !info->is_object())
      continue;
    std::set<std::string> mine;
    for (auto& s : info->value("subscriptionSet", nlohmann::json::array()))
      mine.insert(s.value("topic", "") + " " + s.value("subString", ""));
    if (subs && *subs != mine)
      same = false;
    subs = mine;
    auto props = info->value("properties", nlohmann::json::object());
    if (props.value("messageModel", "") == "BROADCASTING")
      clustering = false;
    auto table = info->value("mqTable", nlohmann::json::object());
    for (auto& [key, value] : table.items())
      ++holders[key];
  }
  if (!same)
    return "WARN: Different subscription in the same group of consumer!!!\n";
  bool rebalanced = true;
  if (clustering)
    for (auto& [key, n] : holders)
      rebalanced = rebalanced && n == 1;
  return std::string{"Same subscription in the same group of consumer\n\n"}
         + "Rebalance " + (rebalanced ? "OK" : "Failed") + "\n";
}

std::string format_consumer_progress(std::vector<queue_progress> queues,
                                     double consume_tps) {
  std::sort(queues.begin(), queues.end(),
            [](const queue_progress& x, const queue_progress& y) {
              return std::tie(x.topic, x.broker_name, x.queue_id)
                     < std::tie(y.topic, y.broker_name, y.queue_id);
            });
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof(line),
                "%-32s  %-32s  %-4s  %-20s  %-20s  %-20s %s\n", "#Topic",
                "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset",
                "#Diff", "#LastTime");
  out << line;
  int64_t diff_total = 0;
  for (auto& q : queues) {
    auto diff = q.broker_offset - q.consumer_offset;
    diff_total += diff;
    auto last = q.last_timestamp == 0 ? std::string{"N/A"}
                                      : human_time_s(q.last_timestamp);
    std::snprintf(line, sizeof(line),
                  "%s  %s  %-4d  %-20" PRId64 "  %-20" PRId64 "  %-20" PRId64
                  " %s\n",
                  pad(q.topic, 32).c_str(), pad(q.broker_name, 32).c_str(),
                  q.queue_id, q.broker_offset, q.consumer_offset, diff,
                  last.c_str());
    out << line;
  }
  std::snprintf(line, sizeof(line),
                "\nConsume TPS: %.2f\nDiff Total: %" PRId64 "\n", consume_tps,
                diff_total);
  out << line;
  return out.str();
}

std::string offset_msg_id_of(const record_view& rec) {
  return encode_offset_msg_id(rec.store_ip, rec.store_port, rec.phys_offset);
}

std::string msg_id_of(const record_view& rec) {
  auto uniq = find_property(rec.properties, property_uniq_key);
  return uniq.empty() ? offset_msg_id_of(rec) : std::string{uniq};
}

std::string format_message(const record_view& rec, bool with_body) {
  std::ostringstream out;
  auto line = [&](const char* name, const std::string& value) {
    out << pad(name, 20) << ' ' << value << '\n';
  };
  line("OffsetID:", offset_msg_id_of(rec));
  line("MsgId:", msg_id_of(rec));
  line("Topic:", std::string{rec.topic});
  line("Tags:",
       "[" + std::string{find_property(rec.properties, property_tags)} + "]");
  line("Keys:",
       "[" + std::string{find_property(rec.properties, property_keys)} + "]");
  line("Queue ID:", std::to_string(rec.queue_id));
  line("Queue Offset:", std::to_string(rec.queue_offset));
  line("CommitLog Offset:", std::to_string(rec.phys_offset));
  line("Reconsume Times:", std::to_string(rec.reconsume_times));
  line("Born Timestamp:", human_time_ms(rec.born_timestamp));
  line("Store Timestamp:", human_time_ms(rec.store_timestamp));
  line("Born Host:", host_text(rec.born_ip, rec.born_port));
  line("Store Host:", host_text(rec.store_ip, rec.store_port));
  line("System Flag:", std::to_string(rec.sys_flag));
  line("Properties:", properties_text(rec.properties));
  if (with_body)
    line("Message Body:", std::string{rec.body});
  return out.str();
}

std::string format_message_table(const std::vector<record_view>& recs) {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof(line), "%-50s %4s %40s\n", "#Message ID", "#QID",
                "#Offset");
  out << line;
  for (auto& rec : recs) {
    std::snprintf(line, sizeof(line), "%-50s %4d %40" PRId64 "\n",
                  msg_id_of(rec).c_str(), rec.queue_id, rec.queue_offset);
    out << line;
  }
  return out.str();
}

namespace {

// The first object anywhere in `x` whose "actor" is `name`.
const nlohmann::json* find_actor_dump(const nlohmann::json& x,
                                      const std::string& name) {
  if (x.is_object()) {
    auto a = x.find("actor");
    if (a != x.end() && a->is_string() && *a == name)
      return &x;
  }
  if (x.is_object() || x.is_array())
    for (auto& v : x)
      if (auto found = find_actor_dump(v, name))
        return found;
  return nullptr;
}

int64_t int_of(const nlohmann::json& x, const char* key) {
  auto i = x.find(key);
  return i != x.end() && i->is_number() ? i->get<int64_t>() : 0;
}

} // namespace

caf::expected<std::string> format_ha_status(const std::string& dump,
                                            const std::string& addr) {
  auto doc = nlohmann::json::parse(dump, nullptr, false);
  if (doc.is_discarded())
    return make_error(errc::corrupt_data, "the broker's dump is no JSON");
  char line[512];
  std::string out;
  if (auto ha = find_actor_dump(doc, "ha_service")) {
    auto& slaves = (*ha)["slaves"];
    std::snprintf(line, sizeof(line),
                  "\n#MasterAddr\t%s\n#MasterCommitLogMaxOffset\t%" PRId64
                  "\n#SlaveNum\t%zu\n#InSyncSlaveNum\t%" PRId64 "\n",
                  addr.c_str(), int_of(*ha, "master_offset"), slaves.size(),
                  int_of(*ha, "in_sync_slaves"));
    out += line;
    std::snprintf(line, sizeof(line), "%-32s  %-16s %16s %16s %16s %16s\n",
                  "#SlaveAddr", "#SlaveAckOffset", "#Diff",
                  "#TransferSpeed(KB/s)", "#Status", "#TransferFromWhere");
    out += line;
    for (auto& s : slaves) {
      auto speed = s.value("bytes_per_second", 0.0) / 1024.0;
      std::snprintf(line, sizeof(line),
                    "%-32s  %-16" PRId64 " %16" PRId64 " %16.2f %16s %16" PRId64
                    "\n",
                    s.value("addr", std::string{}).c_str(),
                    int_of(s, "acked_offset"), int_of(s, "lag_bytes"), speed,
                    s.value("in_sync", false) ? "OK" : "Fall Behind",
                    int_of(s, "from_where"));
      out += line;
    }
    return out;
  }
  if (auto hc = find_actor_dump(doc, "ha_client")) {
    auto time_of = [&](const char* key) {
      auto ms = int_of(*hc, key);
      return ms > 0 ? human_time_ms(ms) : std::string{"-"};
    };
    std::snprintf(line, sizeof(line),
                  "\n#MasterAddr\t%s\n#CommitLogMaxOffset\t%" PRId64
                  "\n#TransferSpeed(KB/s)\t%.2f\n#LastReadTime\t%s\n"
                  "#LastWriteTime\t%s\n#MasterFlushOffset\t%" PRId64 "\n",
                  hc->value("master_addr", std::string{}).c_str(),
                  int_of(*hc, "slave_offset"),
                  hc->value("bytes_per_second", 0.0) / 1024.0,
                  time_of("last_read_ms").c_str(),
                  time_of("last_write_ms").c_str(),
                  int_of(*hc, "master_offset"));
    out += line;
    return out;
  }
  return make_error(errc::corrupt_data,
                    "the broker's dump shows no replication part");
}

} // namespace rmq::admin
