#include "actors/broker/node/broker_frontend.hpp"

#include <chrono>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"

#include "actors/common/dump.hpp"
#include "actors/common/relay.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/common/validators.hpp"

namespace rmq {

const char* broker_frontend_state::name = "broker_frontend";

nlohmann::json broker_frontend_state::dump_fields() const {
  return {{"broker_addr", broker_addr},
          {"broker_name", broker_name},
          {"cluster_name", cluster_name},
          {"broker_id", broker_id},
          {"sends", sends},
          {"pulls", pulls},
          {"admin_requests", admin_requests}};
}

namespace {

using self_ptr = network_pointer<broker_frontend_actor, broker_frontend_state>;

constexpr auto table_timeout = std::chrono::seconds{10};

template <class R, class Handle, class... Ts>
caf::typed_response_promise<R>
ask(self_ptr self, const Handle& hdl, const char* what, Ts&&... xs) {
  ++self->state.admin_requests;
  return relay<R>(self, hdl, table_timeout, "broker", what,
                  std::forward<Ts>(xs)...);
}

std::vector<dumpable_actor> dump_parts(const broker_frontend_peers& p) {
  std::vector<dumpable_actor> parts{p.store.commit_log,
                                    p.store.flusher,
                                    p.store.queue_service,
                                    p.topics,
                                    p.offsets,
                                    p.groups,
                                    p.locks,
                                    p.clients,
                                    p.send,
                                    p.send_back,
                                    p.hold,
                                    p.pull,
                                    p.admin,
                                    p.supervisor};
  parts.insert(parts.end(), p.more.begin(), p.more.end());
  return parts;
}

caf::result<std::string> dump_node(self_ptr self) {
  auto rp = self->make_response_promise<std::string>();
  auto head = self->state.dump_fields();
  head["actor"] = broker_frontend_state::name;
  if (!self->state.peers.supervisor) {
    collect_dumps_into(self, rp, "broker", std::move(head),
                       dump_parts(self->state.peers), table_timeout);
    return rp;
  }
  // The registrar is the one part the supervisor may have replaced.
  self
    ->request(self->state.peers.supervisor, table_timeout, caf::get_atom::value,
              std::string{"namesrv_registrar"})
    .then(
      [self, rp, head](caf::actor& registrar) mutable {
        auto parts = dump_parts(self->state.peers);
        if (registrar)
          parts.push_back(caf::actor_cast<dumpable_actor>(registrar));
        collect_dumps_into(self, rp, "broker", std::move(head), parts,
                           table_timeout);
      },
      [self, rp, head](caf::error& err) mutable {
        log_request_failure("broker", "the current registrar", err);
        collect_dumps_into(self, rp, "broker", std::move(head),
                           dump_parts(self->state.peers), table_timeout);
      });
  return rp;
}

} // namespace

broker_frontend_actor::behavior_type broker_frontend(
  network_pointer<broker_frontend_actor, broker_frontend_state> self,
  broker_frontend_peers peers, std::string broker_addr, std::string broker_name,
  std::string cluster_name, int64_t broker_id) {
  auto& st = self->state;
  st.peers = std::move(peers);
  st.broker_addr = std::move(broker_addr);
  st.broker_name = std::move(broker_name);
  st.cluster_name = std::move(cluster_name);
  st.broker_id = broker_id;
  return {
    // -- data path: delegated, the processors answer the client directly
    // A batch is stored on the network thread that read it (no thread
    // hand-off there and back), and the front stays there while batches
    // come; single sends, which come many at a time, and pulls run on the
    // scheduler beside the network thread, and so does the front after
    // one (docs/broker.md, "Threads").
    [self](send_message_request& req) {
      ++self->state.sends;
      self->run_on_network(req.batch);
      if (req.batch)
        return self->delegate(self->state.peers.send, std::move(req));
      return delegate_to_scheduler(self, self->state.peers.send,
                                   std::move(req));
    },
    [self](pull_message_request& req) {
      ++self->state.pulls;
      self->run_on_network(false);
      return self->delegate(self->state.peers.pull, std::move(req));
    },
    [self](consumer_send_back_request& req) {
      return self->delegate(self->state.peers.send_back, std::move(req));
    },
    [self](end_transaction_request& req) {
      return self->delegate(self->state.peers.end_transaction, std::move(req));
    },
    // The client manager watches the sender as the client's channel:
    // delegation keeps the client as the sender.
    [self](client_heartbeat& req) {
      return self->delegate(self->state.peers.clients, std::move(req));
    },
    [self](get_consumer_connection_request& req) {
      return self->delegate(self->state.peers.clients, std::move(req));
    },
    [self](get_consumer_running_info_request& req) {
      return self->delegate(self->state.peers.clients, std::move(req));
    },
    [self](replica_chunk_request& req) -> caf::result<replica_chunk> {
      if (!self->state.peers.ha)
        return make_error(errc::no_permission,
                          "this broker is a slave: it serves no slaves");
      return self->delegate(self->state.peers.ha, std::move(req));
    },
    [self](role_change_request& req) -> caf::result<std::string> {
      auto& st = self->state;
      if (!st.peers.on_role_change)
        return make_error(errc::no_permission,
                          "this broker cannot change its role");
      bool master_role = req.role == "ASYNC_MASTER"
                         || req.role == "SYNC_MASTER";
      if (!master_role && req.role != "SLAVE")
        return make_error(errc::invalid_parameter,
                          "unknown role '" + req.role
                            + "': ASYNC_MASTER, SYNC_MASTER or SLAVE");
      if (master_role != (req.broker_id == 0) || req.broker_id < 0)
        return make_error(errc::invalid_parameter,
                          "role " + req.role + " with broker id "
                            + std::to_string(req.broker_id)
                            + ": a master has id 0, a slave 1 and up");
      if (master_role && st.broker_id == 0)
        return make_error(errc::invalid_parameter,
                          "this broker is its group's master already");
      auto answer = "restarting as broker id " + std::to_string(req.broker_id)
                    + ", " + req.role;
      auto carry_out = [self, req] {
        return self->state.peers.on_role_change(req);
      };
      // A slave that still copies from a live master is not promoted:
      // two masters would take sends for one group.
      if (master_role && st.peers.ha_client && !req.force) {
        auto rp = self->make_response_promise<std::string>();
        self
          ->request(st.peers.ha_client, std::chrono::seconds{5},
                    caf::get_atom::value)
          .then(
            [rp, carry_out, answer](const std::string& master) mutable {
              if (!master.empty())
                rp.deliver(make_error(
                  errc::no_permission,
                  "the master at " + master
                    + " is alive and this slave copies from it: stop or "
                      "demote it first (or force)"));
              else if (auto err = carry_out())
                rp.deliver(std::move(err));
              else
                rp.deliver(answer);
            },
            [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
        return rp;
      }
      if (auto err = carry_out())
        return err;
      return answer;
    },
    [self](metadata_request& req) -> caf::result<metadata_snapshot> {
      if (!self->state.peers.metadata)
        return make_error(errc::no_permission,
                          "this broker is a slave: it serves no slaves");
      return self->delegate(self->state.peers.metadata, std::move(req));
    },
    [self](unregister_client_request& req) {
      return self->delegate(self->state.peers.clients, std::move(req));
    },
    [self](get_consumer_list_request& req) {
      return self->delegate(self->state.peers.clients, std::move(req));
    },
    [self](lock_batch_request& req) {
      return self->delegate(self->state.peers.locks, std::move(req));
    },
    [self](unlock_batch_request& req) {
      return self->delegate(self->state.peers.locks, std::move(req));
    },
    // -- offsets and lookups: relayed to the detached actors
    [self](query_offset_request& req) {
      return ask<int64_t>(self, self->state.peers.offsets, "query offset",
                          std::move(req));
    },
    [self](update_offset_request& req) -> caf::result<caf::ok_atom> {
      // Names only: RocketMQ also refuses groups and topics it does not
      // have (docs/broker.md, "Broker system tests").
      if (auto err = check_group(req.consumer_group))
        return make_error(errc::subscription_group_not_exist,
                          error_detail(err));
      if (auto err = check_topic(req.topic))
        return make_error(errc::topic_not_exist, error_detail(err));
      // The table's mailbox orders it before any later query from here.
      self->send(self->state.peers.offsets, std::move(req));
      return caf::ok_atom::value;
    },
    [self](get_offset_request& req) {
      return ask<queue_offsets>(self, self->state.peers.store.queue_service,
                                "queue offsets", std::move(req));
    },
    [self](search_offset_request& req) {
      return ask<int64_t>(self, self->state.peers.store.queue_service,
                          "search offset", std::move(req));
    },
    [self](earliest_msg_store_time_request& req) {
      return self->delegate(self->state.peers.admin, std::move(req));
    },
    [self](const view_message_request& req) {
      return ask<std::string>(self, self->state.peers.store.queue_service,
                              "view message", caf::get_atom::value,
                              req.commit_log_offset);
    },
    [self](query_message_request& req) {
      return ask<query_message_result>(self,
                                       self->state.peers.store.queue_service,
                                       "query message", std::move(req));
    },
    // -- admin
    [self](update_topic_request& req) {
      return ask<data_version>(self, self->state.peers.topics, "update topic",
                               caf::put_atom::value, std::move(req.config));
    },
    [self](delete_topic_in_broker_request& req) {
      // Then its committed offsets and its consume queues, as RocketMQ's
      // deleteTopic does; answered once the queues are gone.
      ++self->state.admin_requests;
      auto rp = self->make_response_promise<data_version>();
      self
        ->request(self->state.peers.topics, table_timeout,
                  caf::delete_atom::value, req.topic)
        .then(
          [self, rp, topic = req.topic](data_version& v) mutable {
            self
              ->request(self->state.peers.offsets, table_timeout,
                        caf::delete_atom::value, topic)
              .then([](int64_t) {},
                    [](caf::error& err) {
                      log_request_failure(
                        "broker", "forget a deleted topic's offsets", err);
                    });
            self
              ->request(self->state.peers.store.queue_service, table_timeout,
                        caf::delete_atom::value, topic)
              .then([rp, v](int64_t) mutable { rp.deliver(std::move(v)); },
                    [rp, topic](caf::error& err) mutable {
                      log_request_failure(
                        "broker", "remove a deleted topic's queues", err);
                      rp.deliver(make_error(
                        errc::system_error,
                        "topic " + topic + " deleted, its consume queues not: "
                          + describe(err)));
                    });
          },
          [rp](caf::error& err) mutable {
            log_request_failure("broker", "delete topic", err);
            rp.deliver(std::move(err));
          });
      return rp;
    },
    [self](get_all_topic_config_request) {
      return ask<topic_config_set>(self, self->state.peers.topics,
                                   "topic configs", caf::get_atom::value);
    },
    [self](update_sub_group_request& req) {
      return ask<data_version>(self, self->state.peers.groups,
                               "update subscription group",
                               caf::put_atom::value, std::move(req.config));
    },
    [self](delete_sub_group_request& req) {
      return ask<data_version>(self, self->state.peers.groups,
                               "delete subscription group",
                               caf::delete_atom::value, std::move(req.group));
    },
    [self](get_all_sub_group_request) {
      return ask<subscription_group_set>(self, self->state.peers.groups,
                                         "subscription groups",
                                         caf::get_atom::value);
    },
    [self](topic_stats_request& req) {
      ++self->state.admin_requests;
      return self->delegate(self->state.peers.admin, std::move(req));
    },
    [self](consume_stats_request& req) {
      ++self->state.admin_requests;
      return self->delegate(self->state.peers.admin, std::move(req));
    },
    [self](broker_runtime_info_request req) {
      ++self->state.admin_requests;
      return self->delegate(self->state.peers.admin, req);
    },
    // -- request-reply: delegated, the reply processor answers the sender
    [self](send_reply_message_request& req) {
      ++self->state.sends;
      return self->delegate(self->state.peers.reply, std::move(req));
    },
    [self](dump_atom) { return dump_node(self); },
    [self](caf::put_atom, supervisor_actor& sup) {
      if (!self->state.peers.supervisor)
        self->state.peers.supervisor = std::move(sup);
    },
  };
}

} // namespace rmq
