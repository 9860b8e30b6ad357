// ConsumerRunningInfo (RocketMQ's answer to GET_CONSUMER_RUNNING_INFO,
// 307) as a client writes it: properties, subscriptionSet, mqTable with
// MessageQueue objects as map keys, as fastjson writes them (not JSON,
// but what mqadmin and the dashboard read), statusTable and jstack. Our
// CAF clients answer the broker with it, and the broker passes it on to
// the admin that asked, as it passes on a RocketMQ client's
// (docs/remoting.md, "Clients").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "messages/broker/client_manager.hpp"

namespace rmq::remoting {

/// ProcessQueueInfo: one queue the consumer holds.
struct running_queue_info {
  std::string topic;
  std::string broker_name;
  int32_t queue_id = 0;
  int64_t commit_offset = 0;
  int64_t cached_min_offset = 0;
  int64_t cached_max_offset = 0;
  int32_t cached_count = 0;
  int32_t cached_mib = 0;
  bool locked = false;
};

struct running_info_report {
  /// Java's Properties: text values.
  std::map<std::string, std::string> properties;
  std::vector<subscription_data> subscriptions;
  std::vector<running_queue_info> queues;
  std::string jstack;
};

/// The body, with its keys in fastjson's sorted order.
std::string consumer_running_info_body(const running_info_report& x);

} // namespace rmq::remoting
