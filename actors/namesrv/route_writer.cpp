#include "actors/namesrv/route_writer.hpp"

#include <chrono>
#include <set>

#include <nlohmann/json.hpp>

#include "actors/namesrv/registration_plan.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* route_writer_state::name = "route_writer";

namespace {

using self_ptr = route_writer_actor::stateful_pointer<route_writer_state>;

// Local tables answer in microseconds; this only guards against a dead one.
constexpr auto table_timeout = std::chrono::seconds{10};

// Answers a write whose table request failed; the writer goes on with the
// next write.
template <class T>
void fail(caf::typed_response_promise<T>& rp, const caf::error& err) {
  log_request_failure("namesrv", "route write", err);
  rp.deliver(err);
}

// Answers a registration, with the ORDER_TOPIC_CONFIG namespace if
// RocketMQ's returnOrderTopicConfigToBroker is on.
void reply_registration(
  self_ptr self, register_broker_result result,
  caf::typed_response_promise<register_broker_result> rp) {
  if (!self->state.options.return_order_topic_config_to_broker) {
    rp.deliver(result);
    return;
  }
  self
    ->request(self->state.tables.kv, table_timeout,
              get_kv_list_by_namespace_request{order_topic_config_namespace})
    .await(
      [=](const kv_table& kv) mutable {
        result.kv_table = kv.table;
        rp.deliver(result);
      },
      [=](const caf::error& err) mutable {
        // The registration itself is applied: answer it without the
        // order topic config rather than fail it.
        log_request_failure("namesrv", "order topic config lookup", err);
        rp.deliver(result);
      });
}

// Writes an accepted registration. The route reader's cache is dropped only
// if a route can have changed: brokers re-register every 30 s with nothing
// new, and clearing the cache each time would send most route queries down
// the slow path.
void apply_registration(
  self_ptr self, const register_broker_request& req,
  const caf::actor_addr& channel, registration_plan plan, bool group_changed,
  caf::typed_response_promise<register_broker_result> rp) {
  auto& t = self->state.tables;
  self->send(t.clusters, caf::put_atom::value, req.cluster_name,
             req.broker_name);
  if (group_changed)
    self->send(t.addrs, caf::put_atom::value, plan.group);
  self->send(t.live, caf::put_atom::value, req, channel);
  if (req.has_filter_servers)
    self->send(t.filters, caf::put_atom::value, req.cluster_name,
               req.broker_addr, req.filter_server_list);
  bool changed = group_changed || req.has_filter_servers;
  if (!plan.touch_topics) {
    if (changed)
      self->send(self->state.reader, routes_changed_atom::value);
    reply_registration(self, plan.result, rp);
    return;
  }
  auto result = plan.result;
  self->request(t.topics, table_timeout, caf::put_atom::value, plan.topics)
    .await(
      [=](bool topics_changed) mutable {
        if (changed || topics_changed)
          self->send(self->state.reader, routes_changed_atom::value);
        reply_registration(self, result, rp);
      },
      [=](const caf::error& err) mutable { fail(rp, err); });
}

void register_broker(self_ptr self, register_broker_request req,
                     caf::actor_addr channel,
                     caf::typed_response_promise<register_broker_result> rp) {
  auto& t = self->state.tables;
  auto with_group = [=](const broker_data* current) mutable {
    std::vector<std::string> addrs;
    if (current)
      for (auto& kvp : current->broker_addrs)
        addrs.push_back(kvp.second);
    addrs.push_back(req.broker_addr);
    broker_data copy = current ? *current : broker_data{};
    bool known = current != nullptr;
    self
      ->request(self->state.tables.live, table_timeout, caf::get_atom::value,
                req.cluster_name, addrs)
      .await(
        [=](const std::vector<live_summary>& live) mutable {
          auto& st = self->state;
          auto plan = plan_registration(
            req, known ? &copy : nullptr, live,
            st.options.delete_topic_with_broker_registration);
          if (plan.rejected) {
            ++st.rejected_registrations;
            RMQ_WARN("namesrv", "registration refused: " << plan.reject_reason);
            rp.deliver(make_error(errc::system_error, plan.reject_reason));
            return;
          }
          ++st.registrations;
          bool group_changed = !known || copy != plan.group;
          apply_registration(self, req, channel, std::move(plan), group_changed,
                             rp);
        },
        [=](const caf::error& err) mutable { fail(rp, err); });
  };
  self->request(t.addrs, table_timeout, caf::get_atom::value, req.broker_name)
    .await([=](const broker_data& current) mutable { with_group(&current); },
           [=](const caf::error& err) mutable {
             if (err == errc::broker_not_found)
               with_group(nullptr);
             else
               fail(rp, err);
           });
}

void unregister_batch(
  self_ptr self, std::vector<unregistration> batch,
  caf::typed_response_promise<std::vector<unregister_broker_request>> rp) {
  auto& t = self->state.tables;
  self->request(t.live, table_timeout, caf::delete_atom::value, batch)
    .await(
      [=](const std::vector<unregister_broker_request>& applied) mutable {
        auto& st = self->state;
        ++st.unregistration_batches;
        if (applied.empty()) {
          rp.deliver(applied);
          return;
        }
        st.unregistered_brokers += applied.size();
        self->send(st.tables.filters, caf::delete_atom::value, applied);
        self
          ->request(st.tables.addrs, table_timeout, caf::delete_atom::value,
                    applied)
          .await(
            [=](const std::vector<broker_removal>& removals) mutable {
              auto& t = self->state.tables;
              self->send(t.clusters, caf::delete_atom::value, removals);
              self->send(t.topics, caf::delete_atom::value, removals);
              self->send(self->state.reader, routes_changed_atom::value);
              for (auto& x : applied)
                RMQ_INFO("namesrv", "unregistered broker "
                                      << x.broker_name << " " << x.broker_addr
                                      << " of cluster " << x.cluster_name);
              rp.deliver(applied);
            },
            [=](const caf::error& err) mutable { fail(rp, err); });
      },
      [=](const caf::error& err) mutable { fail(rp, err); });
}

void register_topic(self_ptr self, register_topic_request req,
                    caf::typed_response_promise<caf::ok_atom> rp) {
  if (req.queue_datas.empty()) {
    rp.deliver(caf::ok_atom::value); // RocketMQ: an empty body is a no-op
    return;
  }
  std::vector<std::string> names;
  for (auto& qd : req.queue_datas)
    names.push_back(qd.broker_name);
  self
    ->request(self->state.tables.addrs, table_timeout, caf::get_atom::value,
              names)
    .await(
      [=](const std::vector<broker_data>& known) mutable {
        std::set<std::string> found;
        for (auto& bd : known)
          found.insert(bd.broker_name);
        for (auto& name : names)
          if (found.count(name) == 0) {
            // All or nothing (RocketMQ applied a prefix): clearer to retry.
            rp.deliver(make_error(errc::broker_not_found,
                                  "register topic " + req.topic
                                    + ": unknown broker " + name));
            return;
          }
        ++self->state.topic_writes;
        self->send(self->state.tables.topics, caf::put_atom::value, req);
        self->send(self->state.reader, routes_changed_atom::value);
        rp.deliver(caf::ok_atom::value);
      },
      [=](const caf::error& err) mutable { fail(rp, err); });
}

// RocketMQ answers success whether or not the topic or cluster is known:
// scripts delete a topic on every NameServer of a list, and a NameServer
// that never had it is already in the wanted state.
void delete_topic(self_ptr self, delete_topic_request req,
                  caf::typed_response_promise<caf::ok_atom> rp) {
  auto& t = self->state.tables;
  ++self->state.topic_writes;
  if (req.cluster_name.empty()) {
    self->send(t.topics, caf::delete_atom::value, req.topic);
    self->send(self->state.reader, routes_changed_atom::value);
    rp.deliver(caf::ok_atom::value);
    return;
  }
  self
    ->request(t.clusters, table_timeout, caf::get_atom::value, req.cluster_name)
    .await(
      [=](const std::vector<std::string>& names) mutable {
        if (!names.empty()) {
          self->send(self->state.tables.topics, caf::delete_atom::value,
                     req.topic, names);
          self->send(self->state.reader, routes_changed_atom::value);
        }
        rp.deliver(caf::ok_atom::value);
      },
      [=](const caf::error& err) mutable { fail(rp, err); });
}

} // namespace

route_writer_actor::behavior_type
route_writer(route_writer_actor::stateful_pointer<route_writer_state> self,
             namesrv_tables tables, route_reader_actor reader,
             route_writer_options options) {
  self->state.tables = std::move(tables);
  self->state.reader = std::move(reader);
  self->state.options = options;
  return {
    [=](const register_broker_request& req, const caf::actor_addr& channel) {
      auto rp = self->make_response_promise<register_broker_result>();
      register_broker(self, req, channel, rp);
      return rp;
    },
    [=](const std::vector<unregistration>& batch) {
      auto rp
        = self->make_response_promise<std::vector<unregister_broker_request>>();
      unregister_batch(self, batch, rp);
      return rp;
    },
    [=](const register_topic_request& req) {
      auto rp = self->make_response_promise<caf::ok_atom>();
      register_topic(self, req, rp);
      return rp;
    },
    [=](const delete_topic_request& req) {
      auto rp = self->make_response_promise<caf::ok_atom>();
      delete_topic(self, req, rp);
      return rp;
    },
    [=](const wipe_write_perm_request& req) -> caf::result<write_perm_result> {
      ++self->state.topic_writes;
      auto result = self->delegate(self->state.tables.topics, req);
      self->send(self->state.reader, routes_changed_atom::value);
      return result;
    },
    [=](const add_write_perm_request& req) -> caf::result<write_perm_result> {
      ++self->state.topic_writes;
      auto result = self->delegate(self->state.tables.topics, req);
      self->send(self->state.reader, routes_changed_atom::value);
      return result;
    },
    [=](caf::put_atom, const route_writer_options& opts) {
      self->state.options = opts;
      return caf::ok_atom::value;
    },
    dump_handler(self),
  };
}

nlohmann::json route_writer_state::dump_fields() const {
  return {{"registrations", registrations},
          {"rejected_registrations", rejected_registrations},
          {"unregistration_batches", unregistration_batches},
          {"unregistered_brokers", unregistered_brokers},
          {"topic_writes", topic_writes},
          {"delete_topic_with_broker_registration",
           options.delete_topic_with_broker_registration},
          {"return_order_topic_config_to_broker",
           options.return_order_topic_config_to_broker}};
}

} // namespace rmq
