#include "actors/broker/node/broker_remoting.hpp"

#include <chrono>
#include <utility>

#include "caf/io/broker.hpp"

#include "actors/broker/node/remoting_channel.hpp"
#include "messages/common/errors.hpp"
#include "runtime/remoting/broker_admin_codec.hpp"
#include "runtime/remoting/client_manage_codec.hpp"
#include "runtime/remoting/client_request_headers.hpp"
#include "runtime/remoting/error_response.hpp"
#include "runtime/remoting/message_query_codec.hpp"
#include "runtime/remoting/namesrv_body.hpp"
#include "runtime/remoting/remoting_codes.hpp"

namespace rmq {

namespace {

using namespace remoting;

// A send waits for the store (a sync flush up to syncFlushTimeout, 5 s);
// a held pull for its suspend timeout. Past these the client gets
// SYSTEM_ERROR rather than silence.
constexpr auto answer_timeout = std::chrono::seconds{30};

// The broker's errors as responses; one remark in RocketMQ's words,
// which some clients match on.
remoting_command broker_error(const remoting_command& req,
                              const caf::error& err) {
  if (err == errc::query_not_found
      && req.code == request_code::query_consumer_offset)
    return make_response(req, response_code::query_not_found,
                         "Not found, V3_0_6_SNAPSHOT maybe this group "
                         "consumer boot first");
  return error_response(req, err);
}

/// ask_and_reply with the broker's errors.
template <class Result, class Msg, class Ok>
void ask(caf::io::broker* self, const broker_actor& front, Msg msg,
         const remoting_command& req, remoting_reply reply, Ok ok,
         caf::timespan timeout = answer_timeout) {
  ask_and_reply<Result>(self, front, std::move(msg), req, std::move(reply),
                        timeout, ok, broker_error);
}

remoting_command bad_header(const remoting_command& req,
                            const std::string& err) {
  return make_response(req, response_code::system_error, err);
}

void send(caf::io::broker* self, const broker_actor& front,
          const remoting_peer& peer, remoting_command req,
          remoting_reply reply) {
  send_message_request msg;
  std::string err;
  if (!decode_send(req, msg, err))
    return reply(bad_header(req, err));
  msg.born_ip = peer.ipv4;
  msg.born_port = peer.port;
  auto answer = [](const remoting_command& r, const send_result& x) {
    return send_response(r, x);
  };
  if (req.code == request_code::send_reply_message
      || req.code == request_code::send_reply_message_v2)
    ask<send_result>(self, front, send_reply_message_request{std::move(msg)},
                     req, std::move(reply), answer);
  else
    ask<send_result>(self, front, std::move(msg), req, std::move(reply),
                     answer);
}

void pull(caf::io::broker* self, const broker_actor& front,
          remoting_command req, remoting_reply reply) {
  pull_message_request msg;
  std::string err;
  if (!decode_pull(req, msg, err))
    return reply(bad_header(req, err));
  // A held pull answers within its suspend timeout.
  auto timeout = std::chrono::milliseconds{msg.suspend_timeout_ms}
                 + std::chrono::seconds{10};
  ask<pull_message_result>(self, front, std::move(msg), req, std::move(reply),
                           pull_response, timeout);
}

remoting_command ok_response(const remoting_command& r, caf::ok_atom) {
  return make_response(r, response_code::success);
}

// Requests decoded by `decode` into a `Msg` the front answers with a
// `Result`, turned into a response by `ok`.
// `fail_for(msg)` gives the error answer, for requests whose failure
// RocketMQ words with what they asked for.
template <class Msg, class Result, class Decode, class Ok, class FailFor>
void simple(caf::io::broker* self, const broker_actor& front,
            remoting_command req, remoting_reply reply, Decode decode, Ok ok,
            FailFor fail_for) {
  Msg msg;
  std::string err;
  if (!decode(req, msg, err))
    return reply(bad_header(req, err));
  auto fail = fail_for(msg);
  ask_and_reply<Result>(self, front, std::move(msg), req, std::move(reply),
                        answer_timeout, ok, fail);
}

template <class Msg, class Result, class Decode, class Ok>
void simple(caf::io::broker* self, const broker_actor& front,
            remoting_command req, remoting_reply reply, Decode decode, Ok ok) {
  simple<Msg, Result>(self, front, std::move(req), std::move(reply), decode, ok,
                      [](const Msg&) { return broker_error; });
}

void offsets(caf::io::broker* self, const broker_actor& front,
             remoting_command req, remoting_reply reply) {
  std::string err;
  switch (req.code) {
    case request_code::query_consumer_offset:
      return simple<query_offset_request, int64_t>(self, front, std::move(req),
                                                   std::move(reply),
                                                   decode_query_offset,
                                                   offset_response);
    case request_code::update_consumer_offset:
      return simple<update_offset_request, caf::ok_atom>(
        self, front, std::move(req), std::move(reply), decode_update_offset,
        ok_response);
    case request_code::search_offset_by_timestamp:
      return simple<search_offset_request, int64_t>(self, front, std::move(req),
                                                    std::move(reply),
                                                    decode_search_offset,
                                                    offset_response);
    case request_code::get_earliest_msg_storetime: {
      get_offset_request q;
      if (!decode_get_offset(req, q, err))
        return reply(bad_header(req, err));
      return ask<int64_t>(self, front,
                          earliest_msg_store_time_request{q.topic, q.queue_id},
                          req, std::move(reply),
                          [](const remoting_command& r, int64_t x) {
                            auto res = make_response(r, response_code::success);
                            res.ext_fields["timestamp"] = std::to_string(x);
                            return res;
                          });
    }
    default: { // get_max_offset, get_min_offset
      get_offset_request msg;
      if (!decode_get_offset(req, msg, err))
        return reply(bad_header(req, err));
      bool max = req.code == request_code::get_max_offset;
      return ask<queue_offsets>(
        self, front, std::move(msg), req, std::move(reply),
        [max](const remoting_command& r, const queue_offsets& x) {
          return offset_response(r, max ? x.max_offset : x.min_offset);
        });
    }
  }
}

// HEART_BEAT goes through the connection's channel (spawned at the first
// one), which the client manager then monitors.
void heartbeat(caf::io::broker* self, const broker_actor& front,
               const remoting_peer& peer, remoting_command req,
               remoting_reply reply) {
  client_heartbeat hb;
  std::string err;
  if (!decode_heartbeat(req, hb, err))
    return reply(bad_header(req, err));
  // What mqadmin consumerConnection shows of the client.
  hb.client_addr = peer.host + ":" + std::to_string(peer.port);
  hb.language = req.language;
  hb.version = req.version;
  auto& channel = *peer.session;
  if (!channel)
    channel = self->spawn(remoting_channel, front,
                          caf::actor_cast<caf::actor>(self), peer.connection);
  ask_and_reply<caf::ok_atom>(self, channel, std::move(hb), req,
                              std::move(reply), answer_timeout, ok_response,
                              broker_error);
}

void clients(caf::io::broker* self, const broker_actor& front,
             remoting_command req, remoting_reply reply) {
  switch (req.code) {
    case request_code::unregister_client:
      return simple<unregister_client_request, caf::ok_atom>(
        self, front, std::move(req), std::move(reply), decode_unregister_client,
        ok_response);
    case request_code::get_consumer_list_by_group:
      return simple<get_consumer_list_request, consumer_list>(
        self, front, std::move(req), std::move(reply), decode_consumer_list,
        consumer_list_response);
    case request_code::get_consumer_connection_list:
      return simple<get_consumer_connection_request, consumer_connection>(
        self, front, std::move(req), std::move(reply),
        decode_consumer_connection, consumer_connection_response,
        [](const get_consumer_connection_request& x) {
          return
            [group = x.group](const remoting_command& r, const caf::error&) {
              return make_response(r, response_code::consumer_not_online,
                                   "the consumer group[" + group
                                     + "] not online");
            };
        });
    case request_code::get_consumer_running_info:
      // Relayed to the client (the broker's call to it is 10 s); a client
      // that does not answer is CONSUME_MSG_TIMEOUT, as callConsumer says.
      return simple<get_consumer_running_info_request, consumer_running_info>(
        self, front, std::move(req), std::move(reply),
        decode_consumer_running_info, consumer_running_info_response,
        [](const get_consumer_running_info_request& x) {
          return [who = "<" + x.group + "> <" + x.client_id + ">"](
                   const remoting_command& r, const caf::error& err) {
            if (err == errc::request_timeout)
              return make_response(r, response_code::consume_msg_timeout,
                                   error_detail(err));
            if (err == caf::sec::request_timeout)
              return make_response(r, response_code::consume_msg_timeout,
                                   "consumer " + who + " Timeout");
            return broker_error(r, err);
          };
        });
    case request_code::lock_batch_mq:
      return simple<lock_batch_request, locked_queues>(
        self, front, std::move(req), std::move(reply), decode_lock_batch,
        locked_response);
    case request_code::unlock_batch_mq:
      return simple<unlock_batch_request, caf::ok_atom>(
        self, front, std::move(req), std::move(reply), decode_unlock_batch,
        ok_response);
    case request_code::consumer_send_msg_back:
      return simple<consumer_send_back_request, caf::ok_atom>(
        self, front, std::move(req), std::move(reply), decode_send_back,
        ok_response);
    default: // end_transaction
      return simple<end_transaction_request, caf::ok_atom>(
        self, front, std::move(req), std::move(reply), decode_end_transaction,
        ok_response);
  }
}

// A body-only answer.
template <class T>
auto with_body(std::string (*body)(const T&)) {
  return [body](const remoting_command& r, const T& x) {
    auto res = make_response(r, response_code::success);
    res.body = body(x);
    return res;
  };
}

remoting_command changed(const remoting_command& r, const data_version&) {
  return make_response(r, response_code::success);
}

// Requests without header fields.
template <class Msg>
bool no_fields(const remoting_command&, Msg&, std::string&) {
  return true;
}

void admin(caf::io::broker* self, const broker_actor& front,
           remoting_command req, remoting_reply reply) {
  auto r = std::move(reply);
  switch (req.code) {
    case request_code::update_and_create_topic:
      return simple<update_topic_request, data_version>(
        self, front, std::move(req), std::move(r), decode_update_topic,
        changed);
    case request_code::delete_topic_in_broker:
      return simple<delete_topic_in_broker_request, data_version>(
        self, front, std::move(req), std::move(r), decode_delete_topic,
        changed);
    case request_code::get_all_topic_config:
      return simple<get_all_topic_config_request, topic_config_set>(
        self, front, std::move(req), std::move(r),
        no_fields<get_all_topic_config_request>, topic_configs_response);
    case request_code::update_and_create_subscriptiongroup:
      return simple<update_sub_group_request, data_version>(
        self, front, std::move(req), std::move(r), decode_update_sub_group,
        changed);
    case request_code::delete_subscriptiongroup:
      return simple<delete_sub_group_request, data_version>(
        self, front, std::move(req), std::move(r), decode_delete_sub_group,
        changed);
    case request_code::get_all_subscriptiongroup_config:
      return simple<get_all_sub_group_request, subscription_group_set>(
        self, front, std::move(req), std::move(r),
        no_fields<get_all_sub_group_request>, sub_groups_response);
    case request_code::get_topic_stats_info:
      return simple<topic_stats_request, topic_stats>(
        self, front, std::move(req), std::move(r), decode_topic_stats,
        with_body(topic_stats_body));
    case request_code::get_consume_stats:
      return simple<consume_stats_request, consume_stats>(
        self, front, std::move(req), std::move(r), decode_consume_stats,
        with_body(consume_stats_body));
    default: // get_broker_runtime_info
      return simple<broker_runtime_info_request, broker_runtime_info>(
        self, front, std::move(req), std::move(r),
        no_fields<broker_runtime_info_request>, with_body(runtime_info_body));
  }
}

void lookups(caf::io::broker* self, const broker_actor& front,
             remoting_command req, remoting_reply reply) {
  if (req.code == request_code::view_message_by_id)
    // RocketMQ's answer for any failed lookup.
    return simple<view_message_request, std::string>(
      self, front, std::move(req), std::move(reply), decode_view_message,
      view_message_response, [](const view_message_request& x) {
        return [offset = x.commit_log_offset](const remoting_command& r,
                                              const caf::error&) {
          return make_response(r, response_code::system_error,
                               "can not find message by the offset, "
                                 + std::to_string(offset));
        };
      });
  simple<query_message_request, query_message_result>(
    self, front, std::move(req), std::move(reply), decode_query_message,
    query_message_response);
}

// GET_BROKER_CONFIG: the settings as Java Properties text. A broker reads
// its settings at start: UPDATE_BROKER_CONFIG is refused with the keys
// named, rather than taken and left without effect.
void broker_config(const std::map<std::string, std::string>& config,
                   const remoting_command& req, const remoting_reply& reply) {
  if (req.code == request_code::get_broker_config) {
    auto res = make_response(req, response_code::success);
    res.body = properties_text(config);
    return reply(std::move(res));
  }
  std::string keys;
  for (auto& [key, value] : parse_properties_text(req.body))
    keys += (keys.empty() ? "" : ", ") + key;
  reply(make_response(req, response_code::system_error,
                      "the broker reads its config at start: set "
                        + (keys.empty() ? std::string{"it"} : keys)
                        + " in its config file (or flags) and restart it"));
}

} // namespace

remoting_handler broker_remoting(broker_actor front,
                                 std::map<std::string, std::string> config) {
  return [front, config](caf::io::broker* self, const remoting_peer& peer,
                         remoting_command req, remoting_reply reply) {
    switch (req.code) {
      case request_code::send_message:
      case request_code::send_message_v2:
      case request_code::send_batch_message:
      case request_code::send_reply_message:
      case request_code::send_reply_message_v2:
        return send(self, front, peer, std::move(req), std::move(reply));
      case request_code::pull_message:
        return pull(self, front, std::move(req), std::move(reply));
      case request_code::query_consumer_offset:
      case request_code::update_consumer_offset:
      case request_code::search_offset_by_timestamp:
      case request_code::get_max_offset:
      case request_code::get_min_offset:
      case request_code::get_earliest_msg_storetime:
        return offsets(self, front, std::move(req), std::move(reply));
      case request_code::heart_beat:
        return heartbeat(self, front, peer, std::move(req), std::move(reply));
      case request_code::unregister_client:
      case request_code::get_consumer_list_by_group:
      case request_code::get_consumer_connection_list:
      case request_code::get_consumer_running_info:
      case request_code::lock_batch_mq:
      case request_code::unlock_batch_mq:
      case request_code::consumer_send_msg_back:
      case request_code::end_transaction:
        return clients(self, front, std::move(req), std::move(reply));
      case request_code::view_message_by_id:
      case request_code::query_message:
        return lookups(self, front, std::move(req), std::move(reply));
      case request_code::update_and_create_topic:
      case request_code::delete_topic_in_broker:
      case request_code::get_all_topic_config:
      case request_code::update_and_create_subscriptiongroup:
      case request_code::delete_subscriptiongroup:
      case request_code::get_all_subscriptiongroup_config:
      case request_code::get_topic_stats_info:
      case request_code::get_consume_stats:
      case request_code::get_broker_runtime_info:
        return admin(self, front, std::move(req), std::move(reply));
      case request_code::get_broker_config:
      case request_code::update_broker_config:
        return broker_config(config, req, reply);
      default:
        return reply(not_supported(req));
    }
  };
}

} // namespace rmq
