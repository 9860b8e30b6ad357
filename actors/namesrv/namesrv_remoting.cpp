#include "actors/namesrv/namesrv_remoting.hpp"

#include <chrono>
#include <utility>

#include "caf/io/broker.hpp"

#include "messages/common/errors.hpp"
#include "runtime/message/crc32.hpp"
#include "runtime/remoting/error_response.hpp"
#include "runtime/remoting/namesrv_body.hpp"
#include "runtime/remoting/remoting_codes.hpp"

namespace rmq {

namespace {

using namespace remoting;

// The NameServer's tables answer in microseconds; a request that takes
// this long means the node is stuck, and the client gets SYSTEM_ERROR.
constexpr auto answer_timeout = std::chrono::seconds{10};

/// ask_and_reply with the NameServer's timeout.
template <class Result, class Msg, class Ok, class Fail>
void ask(caf::io::broker* self, const namesrv_actor& ns, Msg msg,
         const remoting_command& req, remoting_reply reply, Ok ok, Fail fail) {
  ask_and_reply<Result>(self, ns, std::move(msg), req, std::move(reply),
                        answer_timeout, ok, fail);
}

/// ask_and_reply with the NameServer's timeout, errors as error_response.
template <class Result, class Msg, class Ok>
void ask(caf::io::broker* self, const namesrv_actor& ns, Msg msg,
         const remoting_command& req, remoting_reply reply, Ok ok) {
  ask<Result>(self, ns, std::move(msg), req, std::move(reply), ok,
              [](const remoting_command& r, const caf::error& err) {
                return error_response(r, err);
              });
}

remoting_command success(const remoting_command& req) {
  return make_response(req, response_code::success);
}

remoting_command with_body(const remoting_command& req, std::string body) {
  auto res = success(req);
  res.body = std::move(body);
  return res;
}

// The fields a request needs; answers the client and returns false when
// one is missing.
bool has_fields(const remoting_command& req, const remoting_reply& reply,
                std::initializer_list<const char*> names) {
  for (auto name : names)
    if (!req.field(name)) {
      reply(missing_field(req, name));
      return false;
    }
  return true;
}

std::string field_or(const remoting_command& req, const char* name) {
  auto x = req.field(name);
  return x ? *x : std::string{};
}

void get_route(caf::io::broker* self, const namesrv_actor& ns,
               remoting_command req, remoting_reply reply) {
  if (!has_fields(req, reply, {"topic"}))
    return;
  auto topic = *req.field("topic");
  ask<topic_route_data>(
    self, ns, get_route_info_request{topic}, std::move(req), std::move(reply),
    [](const remoting_command& r, const topic_route_data& route) {
      return with_body(r, to_json(remoting_view(route)).dump());
    },
    [topic](const remoting_command& r, const caf::error& err) {
      if (err == errc::topic_not_exist)
        return make_response(r, response_code::topic_not_exist,
                             "No topic route info in name server for the "
                             "topic: "
                               + topic);
      return error_response(r, err);
    });
}

// GET_SYSTEM_TOPIC_LIST_FROM_NS names a broker: a remoting client gets
// its remoting address (from the cluster info).
void system_topics(caf::io::broker* self, const namesrv_actor& ns,
                   remoting_command req, remoting_reply reply) {
  auto stub = reply_stub(req);
  self->request(ns, answer_timeout, get_system_topic_list_request{})
    .then(
      [=](const system_topic_list& x) {
        ask<cluster_info>(
          self, ns, get_broker_cluster_info_request{}, stub, reply,
          [x](const remoting_command& r, const cluster_info& info) {
            return with_body(
              r,
              topic_list_json(x.topics, remoting_addr_of(info, x.broker_addr))
                .dump());
          });
      },
      [=](const caf::error& err) { reply(error_response(stub, err)); });
}

void kv_request(caf::io::broker* self, const namesrv_actor& ns,
                remoting_command req, remoting_reply reply) {
  auto ok = [](const remoting_command& r, caf::ok_atom) { return success(r); };
  auto name_space = field_or(req, "namespace");
  auto key = field_or(req, "key");
  switch (req.code) {
    case request_code::put_kv_config:
      if (has_fields(req, reply, {"namespace", "key", "value"}))
        ask<caf::ok_atom>(
          self, ns, put_kv_config_request{name_space, key, *req.field("value")},
          std::move(req), std::move(reply), ok);
      return;
    case request_code::get_kv_config:
      if (has_fields(req, reply, {"namespace", "key"}))
        ask<std::string>(self, ns, get_kv_config_request{name_space, key},
                         std::move(req), std::move(reply),
                         [](const remoting_command& r,
                            const std::string& value) {
                           auto res = success(r);
                           res.ext_fields["value"] = value;
                           return res;
                         });
      return;
    case request_code::delete_kv_config:
      if (has_fields(req, reply, {"namespace", "key"}))
        ask<caf::ok_atom>(self, ns, delete_kv_config_request{name_space, key},
                          std::move(req), std::move(reply), ok);
      return;
    default: // get_kvlist_by_namespace
      if (has_fields(req, reply, {"namespace"}))
        ask<kv_table>(self, ns, get_kv_list_by_namespace_request{name_space},
                      std::move(req), std::move(reply),
                      [](const remoting_command& r, const kv_table& t) {
                        return with_body(r, kv_table_json(t.table).dump());
                      });
  }
}

void write_perm(caf::io::broker* self, const namesrv_actor& ns,
                remoting_command req, remoting_reply reply) {
  if (!has_fields(req, reply, {"brokerName"}))
    return;
  auto name = *req.field("brokerName");
  auto answer = [](const char* count_field) {
    return
      [count_field](const remoting_command& r, const write_perm_result& x) {
        auto res = success(r);
        res.ext_fields[count_field] = std::to_string(x.topic_count);
        return res;
      };
  };
  if (req.code == request_code::wipe_write_perm_of_broker)
    ask<write_perm_result>(self, ns, wipe_write_perm_request{name},
                           std::move(req), std::move(reply),
                           answer("wipeTopicCount"));
  else
    ask<write_perm_result>(self, ns, add_write_perm_request{name},
                           std::move(req), std::move(reply),
                           answer("addTopicCount"));
}

void topics(caf::io::broker* self, const namesrv_actor& ns,
            remoting_command req, remoting_reply reply) {
  auto list = [](const remoting_command& r, const topic_list& x) {
    return with_body(r, topic_list_json(x.topics).dump());
  };
  switch (req.code) {
    case request_code::get_all_topic_list_from_nameserver:
      return ask<topic_list>(self, ns, get_all_topic_list_request{},
                             std::move(req), std::move(reply), list);
    case request_code::get_topics_by_cluster:
      if (has_fields(req, reply, {"cluster"}))
        ask<topic_list>(self, ns,
                        get_topics_by_cluster_request{*req.field("cluster")},
                        std::move(req), std::move(reply), list);
      return;
    case request_code::get_system_topic_list_from_ns:
      return system_topics(self, ns, std::move(req), std::move(reply));
    case request_code::delete_topic_in_namesrv:
      if (has_fields(req, reply, {"topic"}))
        ask<caf::ok_atom>(self, ns,
                          delete_topic_request{*req.field("topic"),
                                               field_or(req, "clusterName")},
                          std::move(req), std::move(reply),
                          [](const remoting_command& r, caf::ok_atom) {
                            return success(r);
                          });
      return;
    default: { // register_topic_in_namesrv
      if (!has_fields(req, reply, {"topic"}))
        return;
      topic_route_data route;
      if (!from_json(req.body, route))
        return reply(make_response(req, response_code::system_error,
                                   "the body is no TopicRouteData"));
      ask<caf::ok_atom>(self, ns,
                        register_topic_request{*req.field("topic"),
                                               std::move(route.queue_datas)},
                        std::move(req), std::move(reply),
                        [](const remoting_command& r, caf::ok_atom) {
                          return success(r);
                        });
    }
  }
}

// The broker identity fields of REGISTER_BROKER, UNREGISTER_BROKER,
// BROKER_HEARTBEAT and QUERY_DATA_VERSION; answers the client and returns
// false when one is missing or brokerId is no number.
template <class Msg>
bool broker_identity(const remoting_command& req, const remoting_reply& reply,
                     Msg& out) {
  if (!has_fields(req, reply, {"brokerName", "brokerAddr", "clusterName"}))
    return false;
  out.broker_name = *req.field("brokerName");
  out.broker_addr = *req.field("brokerAddr");
  out.cluster_name = *req.field("clusterName");
  if (req.field("brokerId")) {
    auto id = req.long_field("brokerId");
    if (!id) {
      reply(make_response(req, response_code::system_error,
                          "the custom field <brokerId> is no number"));
      return false;
    }
    out.broker_id = *id;
  }
  return true;
}

void register_broker(caf::io::broker* self, const namesrv_actor& ns,
                     remoting_command req, remoting_reply reply) {
  register_broker_request msg;
  if (!broker_identity(req, reply, msg))
    return;
  // A RocketMQ broker is reached by its clients where it registers.
  msg.remoting_addr = msg.broker_addr;
  msg.ha_server_addr = field_or(req, "haServerAddr");
  msg.zone_name = field_or(req, "__ZONE_NAME");
  msg.heartbeat_timeout_ms
    = req.long_field("heartbeatTimeoutMillis").value_or(0);
  msg.enable_acting_master = req.bool_field("enableActingMaster");
  if (req.bool_field("compressed"))
    return reply(make_response(req, response_code::system_error,
                               "compressed registration is not supported: "
                               "set compressedRegister=false"));
  // RocketMQ's UtilAll.crc32: CRC-32 without the sign bit; 0 = unchecked.
  auto crc = req.long_field("bodyCrc32").value_or(0);
  if (crc != 0 && crc != (crc32_of(req.body) & 0x7FFFFFFF))
    return reply(
      make_response(req, response_code::system_error, "crc32 not match"));
  if (!req.body.empty()) {
    std::string err;
    if (!register_body_from_json(req.body, msg, err))
      return reply(make_response(req, response_code::system_error, err));
  }
  ask<register_broker_result>(
    self, ns, std::move(msg), std::move(req), std::move(reply),
    [](const remoting_command& r, const register_broker_result& x) {
      auto res = success(r);
      if (!x.ha_server_addr.empty())
        res.ext_fields["haServerAddr"] = x.ha_server_addr;
      if (!x.master_addr.empty())
        res.ext_fields["masterAddr"] = x.master_addr;
      if (!x.kv_table.empty())
        res.body = kv_table_json(x.kv_table).dump();
      return res;
    });
}

void broker_presence(caf::io::broker* self, const namesrv_actor& ns,
                     remoting_command req, remoting_reply reply) {
  auto ok = [](const remoting_command& r, caf::ok_atom) { return success(r); };
  if (req.code == request_code::unregister_broker) {
    unregister_broker_request msg;
    if (broker_identity(req, reply, msg))
      ask<caf::ok_atom>(self, ns, std::move(msg), std::move(req),
                        std::move(reply), ok);
    return;
  }
  if (req.code == request_code::broker_heartbeat) {
    broker_heartbeat_request msg;
    if (broker_identity(req, reply, msg))
      ask<caf::ok_atom>(self, ns, std::move(msg), std::move(req),
                        std::move(reply), ok);
    return;
  }
  // QUERY_DATA_VERSION: the broker's DataVersion in the body.
  query_data_version_request msg;
  if (!broker_identity(req, reply, msg))
    return;
  if (!req.body.empty()) {
    register_broker_request parsed;
    std::string err;
    auto wrapped = R"({"topicConfigSerializeWrapper":{"dataVersion":)"
                   + req.body + "}}";
    if (!register_body_from_json(wrapped, parsed, err))
      return reply(make_response(req, response_code::system_error,
                                 "the body is no DataVersion"));
    msg.version = parsed.version;
  }
  ask<query_data_version_result>(
    self, ns, std::move(msg), std::move(req), std::move(reply),
    [](const remoting_command& r, const query_data_version_result& x) {
      auto res = success(r);
      res.ext_fields["changed"] = x.changed ? "true" : "false";
      res.body = to_json(x.version).dump();
      return res;
    });
}

void config(caf::io::broker* self, const namesrv_actor& ns,
            remoting_command req, remoting_reply reply) {
  if (req.code == request_code::get_namesrv_config)
    return ask<namesrv_config>(
      self, ns, get_namesrv_config_request{}, std::move(req), std::move(reply),
      [](const remoting_command& r, const namesrv_config& c) {
        return with_body(r, properties_text(c.properties));
      });
  auto props = parse_properties_text(req.body);
  ask<caf::ok_atom>(self, ns, update_namesrv_config_request{std::move(props)},
                    std::move(req), std::move(reply),
                    [](const remoting_command& r, caf::ok_atom) {
                      return success(r);
                    });
}

} // namespace

remoting_handler namesrv_remoting(namesrv_actor ns) {
  return [ns](caf::io::broker* self, const remoting_peer&, remoting_command req,
              remoting_reply reply) {
    switch (req.code) {
      case request_code::get_routeinfo_by_topic:
        return get_route(self, ns, std::move(req), std::move(reply));
      case request_code::put_kv_config:
      case request_code::get_kv_config:
      case request_code::delete_kv_config:
      case request_code::get_kvlist_by_namespace:
        return kv_request(self, ns, std::move(req), std::move(reply));
      case request_code::get_broker_cluster_info:
        return ask<cluster_info>(
          self, ns, get_broker_cluster_info_request{}, std::move(req),
          std::move(reply),
          [](const remoting_command& r, const cluster_info& x) {
            return with_body(r, to_json(remoting_view(x)).dump());
          });
      case request_code::wipe_write_perm_of_broker:
      case request_code::add_write_perm_of_broker:
        return write_perm(self, ns, std::move(req), std::move(reply));
      case request_code::get_all_topic_list_from_nameserver:
      case request_code::get_topics_by_cluster:
      case request_code::get_system_topic_list_from_ns:
      case request_code::delete_topic_in_namesrv:
      case request_code::register_topic_in_namesrv:
        return topics(self, ns, std::move(req), std::move(reply));
      case request_code::get_namesrv_config:
      case request_code::update_namesrv_config:
        return config(self, ns, std::move(req), std::move(reply));
      case request_code::register_broker:
        return register_broker(self, ns, std::move(req), std::move(reply));
      case request_code::unregister_broker:
      case request_code::broker_heartbeat:
      case request_code::query_data_version:
        return broker_presence(self, ns, std::move(req), std::move(reply));
      case request_code::get_broker_member_group:
        if (has_fields(req, reply, {"clusterName", "brokerName"}))
          ask<broker_member_group>(
            self, ns,
            get_broker_member_group_request{*req.field("clusterName"),
                                            *req.field("brokerName")},
            std::move(req), std::move(reply),
            [](const remoting_command& r, const broker_member_group& g) {
              return with_body(r, to_json(g).dump());
            });
        return;
      default:
        return reply(not_supported(req));
    }
  };
}

} // namespace rmq
