#include "messages/broker/client_manager.hpp"

#include <array>
#include <string>
#include <tuple>
#include <utility>

#include "messages/common/message_def.hpp"

namespace rmq {

namespace {

template <class Enum, size_t N>
using enum_names = std::array<std::pair<Enum, const char*>, N>;

constexpr enum_names<consume_type, 2> consume_type_names{{
  {consume_type::consume_actively, "CONSUME_ACTIVELY"},
  {consume_type::consume_passively, "CONSUME_PASSIVELY"},
}};

constexpr enum_names<message_model, 2> message_model_names{{
  {message_model::broadcasting, "BROADCASTING"},
  {message_model::clustering, "CLUSTERING"},
}};

constexpr enum_names<consume_from_where, 3> consume_from_where_names{{
  {consume_from_where::consume_from_last_offset, "CONSUME_FROM_LAST_OFFSET"},
  {consume_from_where::consume_from_first_offset, "CONSUME_FROM_FIRST_OFFSET"},
  {consume_from_where::consume_from_timestamp, "CONSUME_FROM_TIMESTAMP"},
}};

template <class Enum, size_t N>
void enum_to_json(nlohmann::json& out, Enum x, const enum_names<Enum, N>& xs) {
  for (auto& [value, text] : xs)
    if (value == x) {
      out = text;
      return;
    }
  out = static_cast<int>(x);
}

template <class Enum, size_t N>
void enum_from_json(const nlohmann::json& in, Enum& x,
                    const enum_names<Enum, N>& xs) {
  if (!in.is_string())
    return;
  for (auto& [value, text] : xs)
    if (in.get_ref<const std::string&>() == text)
      x = value;
}

} // namespace

void to_json(nlohmann::json& out, consume_type x) {
  enum_to_json(out, x, consume_type_names);
}

void from_json(const nlohmann::json& in, consume_type& x) {
  enum_from_json(in, x, consume_type_names);
}

void to_json(nlohmann::json& out, message_model x) {
  enum_to_json(out, x, message_model_names);
}

void from_json(const nlohmann::json& in, message_model& x) {
  enum_from_json(in, x, message_model_names);
}

void to_json(nlohmann::json& out, consume_from_where x) {
  enum_to_json(out, x, consume_from_where_names);
}

void from_json(const nlohmann::json& in, consume_from_where& x) {
  enum_from_json(in, x, consume_from_where_names);
}

RMQ_DEFINE_MESSAGE(subscription_data, topic, sub_string, expression_type,
                   tags_set, code_set, sub_version)

RMQ_DEFINE_MESSAGE(consumer_data, group_name, type, model, from_where,
                   subscriptions, unit_mode)

RMQ_DEFINE_MESSAGE(client_heartbeat, client_id, producer_groups, consumers,
                   client_addr, language, version)

RMQ_DEFINE_MESSAGE(client_connection, client_id, client_addr, language, version)

RMQ_DEFINE_MESSAGE(get_consumer_connection_request, group)

RMQ_DEFINE_MESSAGE(consumer_connection, connections, subscriptions, type, model,
                   from_where)

RMQ_DEFINE_MESSAGE(unregister_client_request, client_id, producer_group,
                   consumer_group)

RMQ_DEFINE_MESSAGE(get_consumer_list_request, group)

RMQ_DEFINE_MESSAGE(consumer_list, client_ids)

RMQ_DEFINE_MESSAGE(find_producer_channels, group)

RMQ_DEFINE_MESSAGE(find_client_channel, client_id)

RMQ_DEFINE_MESSAGE(get_consumer_running_info_request, group, client_id, jstack)

RMQ_DEFINE_MESSAGE(consumer_running_info, body)

RMQ_DEFINE_MESSAGE(consumer_ids_changed, group)

RMQ_DEFINE_MESSAGE(client_queue, topic, broker_name, queue_id)

bool operator<(const client_queue& x, const client_queue& y) {
  return std::tie(x.topic, x.broker_name, x.queue_id)
         < std::tie(y.topic, y.broker_name, y.queue_id);
}

RMQ_DEFINE_MESSAGE(lock_batch_request, group, client_id, queues)

RMQ_DEFINE_MESSAGE(unlock_batch_request, group, client_id, queues)

RMQ_DEFINE_MESSAGE(locked_queues, queues)

RMQ_DEFINE_MESSAGE(subscription_group_config, group_name, consume_enable,
                   consume_from_min_enable, consume_broadcast_enable,
                   consume_message_orderly, retry_queue_nums, retry_max_times,
                   broker_id, which_broker_when_consume_slowly,
                   notify_consumer_ids_changed_enable, group_sys_flag,
                   consume_timeout_minute)

RMQ_DEFINE_MESSAGE(subscription_group_set, groups, version)

RMQ_DEFINE_MESSAGE(find_subscription_group_request, group)

} // namespace rmq
