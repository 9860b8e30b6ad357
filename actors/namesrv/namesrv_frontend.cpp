#include "actors/namesrv/namesrv_frontend.hpp"

#include <chrono>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "actors/common/dump.hpp"
#include "actors/common/relay.hpp"
#include "actors/namesrv/request_checks.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/common/validators.hpp"

namespace rmq {

const char* namesrv_frontend_state::name = "namesrv_frontend";

nlohmann::json namesrv_frontend_state::dump_fields() const {
  return {{"listen", options.listen},
          {"watched_channels", watched.size()},
          {"connections_lost", connections_lost},
          {"enable_all_topic_list", options.enable_all_topic_list},
          {"enable_topic_list", options.enable_topic_list},
          {"order_message_enable", options.order_message_enable}};
}

namespace {

using self_ptr = namesrv_actor::stateful_pointer<namesrv_frontend_state>;

constexpr auto table_timeout = std::chrono::seconds{10};

// Starts watching the actor that sent a registration: its connection
// going down is how a NameServer learns that a broker died.
void watch_sender(self_ptr self) {
  auto sender = self->current_sender();
  if (!sender)
    return;
  auto addr = caf::actor_cast<caf::actor_addr>(sender);
  if (self->state.watched.insert(addr).second)
    self->monitor(caf::actor_cast<caf::actor>(sender));
}

void on_down(self_ptr self, const caf::down_msg& dm) {
  auto& st = self->state;
  if (st.watched.erase(dm.source) == 0)
    return;
  ++st.connections_lost;
  self->request(st.tables.live, table_timeout, conn_lost_atom::value, dm.source)
    .then(
      [=](const std::vector<unregistration>& lost) {
        for (auto& x : lost)
          RMQ_WARN("namesrv",
                   "connection to broker " << x.request.broker_addr << " lost");
        if (!lost.empty())
          self->send(self->state.batcher, lost);
      },
      [=](const caf::error& err) {
        // Its brokers then expire after their heartbeat timeout instead.
        RMQ_ERROR("namesrv", "a lost connection was not handled (" << describe(
                               err) << "): its brokers expire by the scan");
        self->send(self->state.tables.live, unreport_atom::value);
      });
}

// RocketMQ orderMessageEnable: a route carries the topic's entry of the
// ORDER_TOPIC_CONFIG namespace ("brokerA:8;brokerB:8"), empty if none. The
// route reader caches routes only; the KV entry is read per request.
caf::result<topic_route_data>
route_with_order_conf(self_ptr self, const get_route_info_request& req) {
  auto rp = self->make_response_promise<topic_route_data>();
  self->request(self->state.reader, table_timeout, req)
    .then(
      [=](topic_route_data& route) mutable {
        auto result = std::make_shared<topic_route_data>(std::move(route));
        self
          ->request(self->state.tables.kv, table_timeout,
                    get_kv_config_request{order_topic_config_namespace,
                                          req.topic})
          .then(
            [=](const std::string& conf) mutable {
              result->order_topic_conf = conf;
              rp.deliver(std::move(*result));
            },
            [=](const caf::error& err) mutable {
              // The route is still worth more to the client than an error.
              log_request_failure("namesrv", "order topic config lookup", err);
              rp.deliver(std::move(*result));
            });
      },
      [=](const caf::error& err) mutable {
        log_request_failure("namesrv", "route lookup", err);
        rp.deliver(err);
      });
  return rp;
}

// Answers `make(info)` for the cluster info (broker and cluster tables).
template <class R, class F>
caf::result<R> from_cluster_info(self_ptr self, F make) {
  auto rp = self->make_response_promise<R>();
  auto fail = [=](const caf::error& err) mutable {
    log_request_failure("namesrv", "cluster info", err);
    rp.deliver(err);
  };
  self->request(self->state.tables.addrs, table_timeout, caf::get_atom::value)
    .then(
      [=](std::map<std::string, broker_data>& brokers) mutable {
        auto info = std::make_shared<cluster_info>();
        info->broker_addr_table = std::move(brokers);
        self
          ->request(self->state.tables.clusters, table_timeout,
                    caf::get_atom::value)
          .then(
            [=](std::map<std::string, std::vector<std::string>>& cl) mutable {
              info->cluster_addr_table = std::move(cl);
              rp.deliver(make(*info));
            },
            fail);
      },
      fail);
  return rp;
}

caf::result<cluster_info> cluster_info_of(self_ptr self) {
  return from_cluster_info<cluster_info>(self, [](cluster_info& info) {
    return std::move(info);
  });
}

// RocketMQ getSystemTopicList: cluster and broker names (sorted here, a
// set there) and the address of one broker.
caf::result<system_topic_list> system_topics(self_ptr self) {
  return from_cluster_info<system_topic_list>(self, [](cluster_info& info) {
    std::set<std::string> names;
    for (auto& [cluster, brokers] : info.cluster_addr_table) {
      names.insert(cluster);
      names.insert(brokers.begin(), brokers.end());
    }
    system_topic_list result;
    result.topics.assign(names.begin(), names.end());
    for (auto& kvp : info.broker_addr_table)
      if (!kvp.second.broker_addrs.empty()) {
        result.broker_addr = kvp.second.broker_addrs.begin()->second;
        break;
      }
    return result;
  });
}

// UPDATE_NAMESRV_CONFIG: checks every change first (all or none), then
// hands each setting to the actor that uses it and answers once all of
// them have it, so the next request already sees the new settings.
caf::result<caf::ok_atom>
update_config(self_ptr self, const update_namesrv_config_request& req) {
  auto& st = self->state;
  auto next = apply_namesrv_properties(st.options.config, req.properties);
  if (!next)
    return std::move(next.error());
  auto& cfg = *next;
  for (auto& [key, value] : req.properties)
    RMQ_INFO("namesrv", "config updated: " << key << " = " << value);
  st.options.config = cfg;
  st.options.enable_all_topic_list = cfg.enable_all_topic_list;
  st.options.enable_topic_list = cfg.enable_topic_list;
  st.options.order_message_enable = cfg.order_message_enable;
  route_writer_options wopts;
  wopts.delete_topic_with_broker_registration
    = cfg.delete_topic_with_broker_registration;
  wopts.return_order_topic_config_to_broker
    = cfg.return_order_topic_config_to_broker;
  auto rp = self->make_response_promise<caf::ok_atom>();
  auto pending = std::make_shared<int>(3);
  auto done = [=](caf::ok_atom) mutable {
    if (--*pending == 0)
      rp.deliver(caf::ok_atom::value);
  };
  auto fail = [=](const caf::error& err) mutable {
    log_request_failure("namesrv", "namesrv config update", err);
    if (*pending > 0) {
      *pending = 0;
      rp.deliver(err);
    }
  };
  self->request(st.writer, table_timeout, caf::put_atom::value, wopts)
    .then(done, fail);
  self
    ->request(st.tables.live, table_timeout, caf::put_atom::value,
              cfg.broker_timeout)
    .then(done, fail);
  self
    ->request(st.scanner, table_timeout, caf::put_atom::value,
              cfg.scan_interval)
    .then(done, fail);
  return rp;
}

caf::result<topic_list> topics_by_cluster(self_ptr self,
                                          const std::string& cluster) {
  if (!self->state.options.enable_topic_list)
    return make_error(errc::system_error, "disable");
  if (auto err = check_broker_name(cluster, "cluster name"))
    return err;
  auto rp = self->make_response_promise<topic_list>();
  auto fail = [=](const caf::error& err) mutable {
    log_request_failure("namesrv", "topics of cluster " + cluster, err);
    rp.deliver(err);
  };
  self
    ->request(self->state.tables.clusters, table_timeout, caf::get_atom::value,
              cluster)
    .then(
      [=](const std::vector<std::string>& names) mutable {
        if (names.empty()) {
          rp.deliver(topic_list{});
          return;
        }
        self
          ->request(self->state.tables.topics, table_timeout,
                    caf::get_atom::value, names)
          .then([=](topic_list& xs) mutable { rp.deliver(std::move(xs)); },
                fail);
      },
      fail);
  return rp;
}

caf::result<caf::ok_atom> unregister(self_ptr self,
                                     const unregister_broker_request& req) {
  if (auto err = check_broker(req.cluster_name, req.broker_name,
                              req.broker_addr, req.broker_id))
    return err;
  auto rp = self->make_response_promise<caf::ok_atom>();
  auto fail = [=](const caf::error& err) mutable {
    log_request_failure("namesrv", "unregistration", err);
    rp.deliver(err);
  };
  self->request(self->state.tables.live, table_timeout, req)
    .then(
      [=](const unregistration& x) mutable {
        self->request(self->state.batcher, table_timeout, x)
          .then([=](caf::ok_atom ok) mutable { rp.deliver(ok); }, fail);
      },
      fail);
  return rp;
}

caf::result<broker_member_group>
member_group(self_ptr self, const get_broker_member_group_request& req) {
  if (auto err = check_broker_name(req.broker_name, "broker name"))
    return err;
  auto rp = self->make_response_promise<broker_member_group>();
  self
    ->request(self->state.tables.addrs, table_timeout, caf::get_atom::value,
              req.broker_name)
    .then(
      [=](const broker_data& bd) mutable {
        // RocketMQ answers the requested cluster, not the stored one; we
        // fill in the stored one if none was asked for.
        auto cluster = req.cluster_name.empty() ? bd.cluster : req.cluster_name;
        rp.deliver(
          broker_member_group{cluster, req.broker_name, bd.broker_addrs});
      },
      [=](const caf::error& err) mutable {
        // RocketMQ: an unknown broker is a group without addresses.
        if (err == errc::broker_not_found)
          rp.deliver(
            broker_member_group{req.cluster_name, req.broker_name, {}});
        else {
          log_request_failure("namesrv", "broker member group", err);
          rp.deliver(err);
        }
      });
  return rp;
}

// Collects the dump of every actor of the node into one JSON document.
caf::result<std::string> dump_node(self_ptr self) {
  auto& st = self->state;
  std::vector<dumpable_actor> parts{st.tables.addrs,   st.tables.clusters,
                                    st.tables.live,    st.tables.topics,
                                    st.tables.filters, st.tables.kv,
                                    st.reader,         st.writer,
                                    st.batcher,        st.scanner};
  nlohmann::json head = st.dump_fields();
  head["actor"] = namesrv_frontend_state::name;
  return collect_dumps(self, "namesrv", std::move(head), parts, table_timeout);
}

} // namespace

namesrv_actor::behavior_type
namesrv_frontend(namesrv_actor::stateful_pointer<namesrv_frontend_state> self,
                 namesrv_tables tables, route_reader_actor reader,
                 route_writer_actor writer,
                 unregistration_batcher_actor batcher, scan_timer_actor scanner,
                 namesrv_frontend_options options) {
  auto& st = self->state;
  st.tables = std::move(tables);
  st.reader = std::move(reader);
  st.writer = std::move(writer);
  st.batcher = std::move(batcher);
  st.scanner = std::move(scanner);
  st.options = std::move(options);
  self->set_down_handler([=](caf::down_msg& dm) { on_down(self, dm); });
  auto& t = st.tables;
  return {
    [=](const register_broker_request& req)
      -> caf::result<register_broker_result> {
      if (auto err = check_registration(req))
        return err;
      watch_sender(self);
      auto channel = caf::actor_cast<caf::actor_addr>(self->current_sender());
      return self->delegate(self->state.writer, req, channel);
    },
    [=](const unregister_broker_request& req) { return unregister(self, req); },
    [=](const broker_heartbeat_request& req) -> caf::result<caf::ok_atom> {
      if (auto err = check_broker(req.cluster_name, req.broker_name,
                                  req.broker_addr, req.broker_id))
        return err;
      return self->delegate(t.live, req);
    },
    [=](const query_data_version_request& req)
      -> caf::result<query_data_version_result> {
      if (auto err = check_broker(req.cluster_name, req.broker_name,
                                  req.broker_addr, req.broker_id))
        return err;
      return self->delegate(t.live, req);
    },
    [=](const get_broker_member_group_request& req) {
      return member_group(self, req);
    },
    [=](const get_broker_cluster_info_request&) {
      return cluster_info_of(self);
    },
    [=](const wipe_write_perm_request& req) -> caf::result<write_perm_result> {
      if (auto err = check_broker_name(req.broker_name, "broker name"))
        return err;
      return self->delegate(self->state.writer, req);
    },
    [=](const add_write_perm_request& req) -> caf::result<write_perm_result> {
      if (auto err = check_broker_name(req.broker_name, "broker name"))
        return err;
      return self->delegate(self->state.writer, req);
    },
    [=](const get_all_topic_list_request& req) -> caf::result<topic_list> {
      if (!self->state.options.enable_all_topic_list)
        return make_error(errc::system_error, "disable");
      return self->delegate(t.topics, req);
    },
    [=](const get_topics_by_cluster_request& req) {
      return topics_by_cluster(self, req.cluster_name);
    },
    [=](const delete_topic_request& req) -> caf::result<caf::ok_atom> {
      if (auto err = check_registered_topic(req.topic))
        return err;
      if (!req.cluster_name.empty())
        if (auto err = check_broker_name(req.cluster_name, "cluster name"))
          return err;
      return self->delegate(self->state.writer, req);
    },
    [=](const register_topic_request& req) -> caf::result<caf::ok_atom> {
      if (auto err = check_register_topic(req))
        return err;
      return self->delegate(self->state.writer, req);
    },
    [=](const get_route_info_request& req) -> caf::result<topic_route_data> {
      if (auto err = check_registered_topic(req.topic))
        return err;
      if (self->state.options.order_message_enable)
        return route_with_order_conf(self, req);
      return self->delegate(self->state.reader, req);
    },
    [=](const put_kv_config_request& req) -> caf::result<caf::ok_atom> {
      // The table checks the rest; an oversized value is not even copied
      // to its thread.
      if (auto err = check_kv_value(req.value))
        return err;
      return relay<caf::ok_atom>(self, t.kv, table_timeout, "namesrv",
                                 "KV request", req);
    },
    [=](const get_kv_config_request& req) -> caf::result<std::string> {
      if (auto err = check_kv(req.name_space, req.key))
        return err;
      return relay<std::string>(self, t.kv, table_timeout, "namesrv",
                                "KV request", req);
    },
    [=](const delete_kv_config_request& req) -> caf::result<caf::ok_atom> {
      if (auto err = check_kv(req.name_space, req.key))
        return err;
      return relay<caf::ok_atom>(self, t.kv, table_timeout, "namesrv",
                                 "KV request", req);
    },
    [=](const get_kv_list_by_namespace_request& req) -> caf::result<kv_table> {
      if (auto err = check_kv_name(req.name_space, "namespace"))
        return err;
      return relay<kv_table>(self, t.kv, table_timeout, "namesrv", "KV request",
                             req);
    },
    [=](const get_namesrv_config_request&) {
      return namesrv_config{namesrv_properties(self->state.options.config)};
    },
    [=](const update_namesrv_config_request& req) {
      return update_config(self, req);
    },
    [=](const get_system_topic_list_request&) { return system_topics(self); },
    [=](dump_atom) { return dump_node(self); },
  };
}

} // namespace rmq
