#include "actors/namesrv/namesrv_config.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <set>

#include "messages/common/errors.hpp"

namespace rmq {

namespace {

std::string bool_text(bool x) {
  return x ? "true" : "false";
}

int64_t to_ms(caf::timespan x) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(x).count();
}

std::string lower(std::string x) {
  std::transform(x.begin(), x.end(), x.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  return x;
}

caf::error bad_value(const std::string& key, const std::string& value,
                     const char* want) {
  return make_error(errc::invalid_parameter,
                    "config " + key + ": '" + value + "' is not " + want);
}

// Java's Boolean.parseBoolean takes anything and calls it false; a typo
// then silently turns a feature off, so only true/false pass here.
caf::error parse_bool(const std::string& key, const std::string& value,
                      bool& out) {
  auto x = lower(value);
  if (x == "true")
    out = true;
  else if (x == "false")
    out = false;
  else
    return bad_value(key, value, "true or false");
  return {};
}

caf::error parse_ms(const std::string& key, const std::string& value,
                    int64_t min, caf::timespan& out) {
  if (value.empty() || value.size() > 12
      || !std::all_of(value.begin(), value.end(),
                      [](unsigned char c) { return std::isdigit(c); }))
    return bad_value(key, value, "a number of milliseconds");
  auto ms = std::stoll(value);
  if (ms < min)
    return bad_value(key, value,
                     min == 0 ? "at least 0" : "at least 1 millisecond");
  out = std::chrono::milliseconds{ms};
  return {};
}

// Keys a running node shows but reads only at start (RocketMQ takes them
// and silently ignores the change; we say so).
const std::set<std::string>& start_only_keys() {
  static const std::set<std::string> keys{"listenPort", "cafListenPort",
                                          "bindAddress",
                                          "unRegisterBrokerQueueCapacity",
                                          "routeCacheEntries"};
  return keys;
}

} // namespace

std::map<std::string, std::string>
namesrv_properties(const namesrv_options& opts) {
  return {
    {"bindAddress", opts.listen_addr},
    // RocketMQ's listenPort is the port its clients know: remoting's.
    {"listenPort", std::to_string(opts.remoting_port)},
    {"cafListenPort", std::to_string(opts.port)},
    {"kvConfigPath", opts.kv_config_path},
    {"scanNotActiveBrokerInterval", std::to_string(to_ms(opts.scan_interval))},
    {"brokerChannelExpiredTime", std::to_string(to_ms(opts.broker_timeout))},
    {"unRegisterBrokerQueueCapacity",
     std::to_string(opts.unregister_queue_capacity)},
    {"enableAllTopicList", bool_text(opts.enable_all_topic_list)},
    {"enableTopicList", bool_text(opts.enable_topic_list)},
    {"orderMessageEnable", bool_text(opts.order_message_enable)},
    {"deleteTopicWithBrokerRegistration",
     bool_text(opts.delete_topic_with_broker_registration)},
    {"returnOrderTopicConfigToBroker",
     bool_text(opts.return_order_topic_config_to_broker)},
    {"routeCacheEntries", std::to_string(opts.route_cache_entries)},
    {"configBlackList", namesrv_config_black_list},
  };
}

bool is_black_listed_config(const std::string& key) {
  static const std::set<std::string> keys{"configBlackList", "configStorePath",
                                          "kvConfigPath", "rocketmqHome"};
  return keys.count(key) > 0;
}

caf::expected<namesrv_options>
apply_namesrv_properties(namesrv_options opts,
                         const std::map<std::string, std::string>& changes) {
  // RocketMQ refuses the whole update if any key is black-listed.
  for (auto& kvp : changes)
    if (is_black_listed_config(kvp.first))
      return make_error(errc::no_permission,
                        "Can not update config in black list.");
  for (auto& [key, value] : changes) {
    caf::error err;
    if (key == "scanNotActiveBrokerInterval")
      err = parse_ms(key, value, 0, opts.scan_interval);
    else if (key == "brokerChannelExpiredTime")
      err = parse_ms(key, value, 1, opts.broker_timeout);
    else if (key == "enableAllTopicList")
      err = parse_bool(key, value, opts.enable_all_topic_list);
    else if (key == "enableTopicList")
      err = parse_bool(key, value, opts.enable_topic_list);
    else if (key == "orderMessageEnable")
      err = parse_bool(key, value, opts.order_message_enable);
    else if (key == "deleteTopicWithBrokerRegistration")
      err = parse_bool(key, value, opts.delete_topic_with_broker_registration);
    else if (key == "returnOrderTopicConfigToBroker")
      err = parse_bool(key, value, opts.return_order_topic_config_to_broker);
    else if (start_only_keys().count(key) > 0)
      err = make_error(errc::invalid_parameter,
                       "config " + key
                         + " is read only at start; restart the node");
    else
      err = make_error(errc::invalid_parameter,
                       "unknown config key '" + key + "'");
    if (err)
      return err;
  }
  return opts;
}

} // namespace rmq
