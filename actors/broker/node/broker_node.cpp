#include "actors/broker/node/broker_node.hpp"

#include <arpa/inet.h>

#include <functional>
#include <memory>
#include <utility>

#include "caf/actor_cast.hpp"
#include "caf/actor_system.hpp"
#include "caf/after.hpp"
#include "caf/event_based_actor.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/send.hpp"

#include "actors/broker/delayed/schedule_service.hpp"
#include "actors/broker/delayed/timer_service.hpp"
#include "actors/broker/node/broker_admin_service.hpp"
#include "actors/broker/node/broker_frontend.hpp"
#include "actors/broker/node/namesrv_registrar.hpp"
#include "actors/broker/processor/pull_hold_service.hpp"
#include "actors/broker/processor/pull_processor.hpp"
#include "actors/broker/processor/reply_processor.hpp"
#include "actors/broker/processor/send_back_processor.hpp"
#include "actors/broker/processor/send_processor.hpp"
#include "actors/broker/replication/ha_client.hpp"
#include "actors/broker/replication/ha_service.hpp"
#include "actors/broker/replication/metadata_service.hpp"
#include "actors/broker/replication/slave_sync.hpp"
#include "actors/broker/table/client_manager.hpp"
#include "actors/broker/table/consumer_offset_table.hpp"
#include "actors/broker/table/queue_lock_table.hpp"
#include "actors/broker/table/subscription_group_table.hpp"
#include "actors/broker/table/topic_config_table.hpp"
#include "actors/broker/transaction/end_transaction_processor.hpp"
#include "actors/broker/transaction/transaction_check_service.hpp"
#include "messages/common/errors.hpp"
#include "runtime/broker/transaction_rules.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/net/host_port.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq {

namespace {

// Longer than the registrar's own bound per NameServer (3 s), so it answers
// before this runs out.
constexpr auto unregister_wait = std::chrono::seconds{5};
constexpr auto flush_wait = std::chrono::seconds{5};

// Hands the topic table's first snapshot to the registrar, which was
// subscribed as a watcher before (one mailbox: no change falls in between
// subscription and snapshot), then quits. A change made right after the
// snapshot reaches the registrar directly and could overtake it; at start
// nothing changes topics yet. An actor, not a blocking request, so that spawn_broker works
// on the deterministic scheduler too.
caf::behavior topic_relay(caf::event_based_actor* self,
                          topic_config_table_actor topics,
                          namesrv_registrar_actor registrar) {
  self->request(topics, std::chrono::seconds{10}, caf::get_atom::value)
    .then(
      [=](topic_config_set& set) {
        caf::anon_send(registrar, caf::put_atom::value, std::move(set));
        self->quit();
      },
      [=](caf::error& err) {
        // The registrar keeps registering without topics until the next
        // change; the node still works.
        log_request_failure("broker", "the initial topic set", err);
        self->quit();
      });
  return {[](caf::ok_atom) {}};
}

// The graceful stop as a sequence of asynchronous steps.
caf::behavior broker_stopper(caf::event_based_actor* self, broker_node node) {
  auto rest = [=] {
    for (auto& hdl : node.actors)
      caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
    self->quit();
  };
  auto flush = [=] {
    self->request(node.offsets, flush_wait, flush_atom::value)
      .then([=](int64_t) { rest(); },
            [=](caf::error& err) {
              log_request_failure("broker", "flushing consumer offsets", err);
              rest();
            });
  };
  auto unregister = [=](caf::actor current) {
    if (current != caf::actor_cast<caf::actor>(node.registrar)) {
      // A replacement: the supervisor's exit stopped it, and NameServers
      // drop a broker whose registering actor went down.
      flush();
      return;
    }
    self->request(node.registrar, unregister_wait, caf::delete_atom::value)
      .then([=](caf::ok_atom) { flush(); },
            [=](caf::error& err) {
              log_request_failure("broker", "unregistering", err);
              flush();
            });
  };
  // The supervisor goes first, or it would take the exits below (the
  // registrar quits after unregistering) for failures. It is asked for the
  // current registrar before, which may be a replacement.
  auto stop_supervisor = [=](caf::actor current) {
    self->monitor(node.supervisor);
    self->set_down_handler([=](caf::down_msg&) { unregister(current); });
    caf::anon_send_exit(node.supervisor, caf::exit_reason::user_shutdown);
  };
  auto original = caf::actor_cast<caf::actor>(node.registrar);
  self
    ->request(node.supervisor, flush_wait, caf::get_atom::value,
              std::string{"namesrv_registrar"})
    .then([=](caf::actor& current) { stop_supervisor(current); },
          // The supervisor is gone (the node failed) or did not answer.
          [=](caf::error&) { stop_supervisor(original); });
  return {[](caf::ok_atom) {}};
}

std::string config_path_of(const std::string& root, const char* name) {
  return root + "/config/" + name;
}

} // namespace

std::string consumer_offsets_json_path(const std::string& store_root) {
  return config_path_of(store_root, "consumerOffset.json");
}

std::string subscription_groups_json_path(const std::string& store_root) {
  return config_path_of(store_root, "subscriptionGroup.json");
}

caf::expected<broker_node> spawn_broker(caf::actor_system& sys,
                                        const broker_options& opts) {
  if (opts.store_dir.empty())
    return make_error(errc::invalid_parameter, "broker: no store dir");
  // The addresses handed out (docs/replication.md, "Addresses").
  auto ip1 = opts.broker_ip1.empty() ? opts.listen_host : opts.broker_ip1;
  auto ip2 = opts.broker_ip2.empty() ? ip1 : opts.broker_ip2;
  in_addr ip{};
  in_addr ip2_bin{};
  if (inet_pton(AF_INET, ip1.c_str(), &ip) != 1
      || inet_pton(AF_INET, ip2.c_str(), &ip2_bin) != 1)
    return make_error(errc::invalid_parameter,
                      "broker: brokerIP1 / brokerIP2 must be IPv4 addresses: '"
                        + ip1 + "', '" + ip2 + "'");
  if (ip.s_addr == INADDR_ANY || ip2_bin.s_addr == INADDR_ANY)
    return make_error(errc::invalid_parameter,
                      "broker: listening on " + opts.listen_host
                        + " needs --broker-ip1 (and --broker-ip2): the "
                          "address clients and slaves are told");
  std::vector<host_port> namesrvs;
  if (!opts.namesrv_addr.empty()) {
    auto parsed = parse_host_port_list(opts.namesrv_addr);
    if (!parsed)
      return make_error(errc::invalid_parameter,
                        "broker: bad NameServer list '" + opts.namesrv_addr
                          + "': RocketMQ's form is 'host:port;host:port' "
                            "(';' between entries, no ',')");
    namesrvs = std::move(*parsed);
  }
  auto& wall = opts.wall_clock;
  auto scfg = opts.store;
  scfg.dir = opts.store_dir;
  scfg.flush = opts.flush;
  scfg.store_ip = ntohl(ip.s_addr);
  // The store host of every record and offsetMsgId: where RocketMQ's tools
  // look a message up (its remoting address; the CAF one without).
  scfg.store_port = opts.remoting_port != 0 ? opts.remoting_port : opts.port;
  scfg.wall_clock = wall;
  scfg.slave = opts.broker_id != 0;
  auto opened = storage::message_store::open(scfg, wall.now_ms());
  if (!opened)
    return std::move(opened.error());
  // A new term (docs/replication.md, "Epochs"): a promotion, a first
  // start, or a log that lost a tail its slaves may have copied. A plain
  // restart goes on in its term: a restarted old master that did not hear
  // of a promotion keeps its older term, and the NameServers keep the
  // group with the newer one.
  if (opts.broker_id == 0
      && (opts.new_term || (*opened)->epochs().empty()
          || (*opened)->recovery().torn_tail_offset >= 0))
    if (auto term = (*opened)->begin_term(wall.now_ms()); !term)
      return std::move(term.error());
  broker_node node;
  node.store = spawn_store_actors(sys, *opened, opts.detach_io,
                                  opts.checkpoint_interval, opts.detach_writer);
  auto spawn_io = [&](auto fn, auto&&... xs) {
    return opts.detach_io ? sys.spawn<caf::detached>(fn, xs...)
                          : sys.spawn(fn, xs...);
  };
  topic_config_table_options topts;
  topts.config_path = topics_json_path(opts.store_dir);
  topts.broker_name = opts.broker_name;
  topts.cluster_name = opts.cluster_name;
  topts.auto_create_topic_enable = opts.auto_create_topic;
  topts.wall_clock = wall;
  topts.stored_queue_counts = (*opened)->queue_counts();
  node.topics = spawn_io(topic_config_table, topts);
  consumer_offset_config ocfg;
  ocfg.path = consumer_offsets_json_path(opts.store_dir);
  ocfg.detach_writer = opts.detach_io;
  node.offsets = sys.spawn(consumer_offset_table, ocfg,
                           node.store.queue_service);
  subscription_group_table_options gopts;
  gopts.path = subscription_groups_json_path(opts.store_dir);
  gopts.auto_create = opts.auto_create_subscription_group;
  gopts.wall_clock = wall;
  node.groups = spawn_io(subscription_group_table, gopts);
  node.locks = sys.spawn(queue_lock_table, opts.rebalance_lock_max_live_time);
  node.clients = sys.spawn(client_manager, client_manager_options{},
                           node.groups, node.topics);
  send_processor_options sopts;
  sopts.cluster_name = opts.cluster_name;
  sopts.broker_name = opts.broker_name;
  sopts.slave = opts.broker_id != 0;
  sopts.store_ip = scfg.store_ip;
  sopts.store_port = scfg.store_port;
  sopts.max_message_size = scfg.max_message_size;
  sopts.seed = opts.seed;
  sopts.wall_clock = wall;
  sopts.reject_transaction_message = opts.reject_transaction_message;
  sopts.timer = opts.timer;
  // The store checked the table when it opened.
  if (auto delays = parse_delay_levels(scfg.message_delay_level))
    sopts.max_delay_level = static_cast<int32_t>(delays->size());
  node.send = sys.spawn(send_processor, sopts, node.topics,
                        node.store.commit_log);
  send_back_processor_options bopts;
  bopts.store_ip = scfg.store_ip;
  bopts.store_port = scfg.store_port;
  bopts.seed = opts.seed;
  bopts.max_delay_level = sopts.max_delay_level;
  node.send_back = sys.spawn(send_back_processor, bopts, node.topics,
                             node.store.queue_service, node.store.commit_log);
  end_transaction_processor_options eopts;
  eopts.slave = opts.broker_id != 0;
  eopts.transaction_timeout_ms
    = std::chrono::duration_cast<std::chrono::milliseconds>(
        opts.transaction_timeout)
        .count();
  eopts.wall_clock = wall;
  schedule_service_options schopts;
  schopts.offsets_path = delay_offsets_json_path(opts.store_dir);
  schopts.message_delay_level = scfg.message_delay_level;
  schopts.wall_clock = wall;
  schopts.slave = opts.broker_id != 0;
  node.schedule = spawn_io(schedule_service, schopts, node.store.queue_service,
                           node.store.commit_log);
  caf::anon_send(node.store.queue_service, caf::subscribe_atom::value,
                 caf::actor_cast<arrival_listener_actor>(node.schedule),
                 std::string{schedule_topic});
  transaction_check_service_options topts2;
  topts2.offsets_path = transaction_offsets_json_path(opts.store_dir);
  topts2.broker_name = opts.broker_name;
  topts2.broker_addr = ip1 + ":" + std::to_string(opts.port);
  topts2.store_ip = scfg.store_ip;
  topts2.store_port = scfg.store_port;
  topts2.check_interval = opts.transaction_check_interval;
  topts2.transaction_timeout_ms = eopts.transaction_timeout_ms;
  topts2.check_max = opts.transaction_check_max;
  topts2.wall_clock = wall;
  topts2.slave = opts.broker_id != 0;
  node.transaction_check = spawn_io(transaction_check_service, topts2,
                                    node.store.queue_service,
                                    node.store.commit_log, node.clients);
  for (auto topic : {trans_half_topic, trans_op_half_topic})
    caf::anon_send(
      node.store.queue_service, caf::subscribe_atom::value,
      caf::actor_cast<arrival_listener_actor>(node.transaction_check),
      std::string{topic});
  node.end_transaction
    = sys.spawn(end_transaction_processor, eopts, node.store.queue_service,
                node.store.commit_log, node.transaction_check);
  timer_service_options tmopts;
  tmopts.dir = timer_store_dir(opts.store_dir);
  tmopts.timer = opts.timer;
  tmopts.log_segment_entries = opts.timer_log_segment_entries;
  tmopts.wall_clock = wall;
  tmopts.slave = opts.broker_id != 0;
  node.timer = spawn_io(timer_service, tmopts, node.store.queue_service,
                        node.store.commit_log);
  caf::anon_send(node.store.queue_service, caf::subscribe_atom::value,
                 caf::actor_cast<arrival_listener_actor>(node.timer),
                 std::string{timer_topic});
  node.hold = sys.spawn(pull_hold_service, node.store.queue_service,
                        caf::duration{caf::infinite});
  pull_processor_config pcfg;
  pcfg.max_transfer_count = opts.max_transfer_count;
  pcfg.max_transfer_bytes = opts.max_transfer_bytes;
  pcfg.slave_read_enable = opts.slave_read_enable;
  pcfg.slave = opts.broker_id != 0;
  node.pull = sys.spawn(pull_processor, pcfg, node.topics,
                        node.store.queue_service, node.offsets, node.hold,
                        node.groups);
  namesrv_registrar_options ropts;
  ropts.namesrv_addrs = std::move(namesrvs);
  ropts.cluster_name = opts.cluster_name;
  ropts.broker_addr = ip1 + ":" + std::to_string(opts.port);
  ropts.broker_name = opts.broker_name;
  ropts.broker_id = opts.broker_id;
  // Slaves ask over the CAF port: brokerIP2 there.
  ropts.ha_server_addr = ip2 + ":" + std::to_string(opts.port);
  if (opts.remoting_port != 0)
    ropts.remoting_addr = ip1 + ":" + std::to_string(opts.remoting_port);
  ropts.register_interval = opts.register_interval;
  if (auto terms = (*opened)->epochs(); !terms.empty())
    ropts.state_version = terms.back().epoch;
  ropts.connector = opts.connector;
  ropts.on_event = opts.on_registrar_event;
  // A slave's replication client learns its master from the answers;
  // spawned below, so the callback reads it from a shared slot.
  auto ha_client_slot = std::make_shared<ha_client_actor>();
  if (opts.broker_id != 0)
    ropts.on_master = [ha_client_slot](const std::string& addr) {
      if (*ha_client_slot)
        caf::anon_send(*ha_client_slot, caf::connect_atom::value, addr);
    };
  // Every actor but the registrar holds state (files, parked pulls, client
  // channels, locks, the broker permission) or is held by handle by the
  // others, so its exit stops the node. The registrar holds only its
  // options and what NameServers told it: a replacement subscribes to the
  // topic table again (which dropped the dead watcher), gets the current
  // topics and registers at once.
  auto topics = node.topics;
  auto spawn_registrar = [&sys, ropts, topics](bool wait_for_open) {
    auto o = ropts;
    o.wait_for_open = wait_for_open;
    auto hdl = sys.spawn(namesrv_registrar, std::move(o));
    caf::anon_send(topics, caf::subscribe_atom::value,
                   caf::actor_cast<caf::actor>(hdl));
    sys.spawn(topic_relay, topics, hdl);
    return caf::actor_cast<caf::actor>(hdl);
  };
  // Watcher first, then the snapshot: the registrar misses no change.
  node.registrar = caf::actor_cast<namesrv_registrar_actor>(
    spawn_registrar(opts.register_when_opened));
  // A replacement comes after the port was published (or the node never
  // publishes one).
  std::function<caf::actor()> respawn_registrar = [spawn_registrar] {
    return spawn_registrar(false);
  };
  broker_admin_options aopts;
  aopts.broker_name = opts.broker_name;
  aopts.flush_disk_type
    = opts.flush == storage::flush_mode::sync ? "SYNC_FLUSH" : "ASYNC_FLUSH";
  aopts.boot_timestamp = wall.now_ms();
  aopts.wall_clock = wall;
  broker_frontend_peers fpeers;
  fpeers.store = node.store;
  fpeers.topics = node.topics;
  fpeers.offsets = node.offsets;
  fpeers.groups = node.groups;
  fpeers.locks = node.locks;
  fpeers.clients = node.clients;
  fpeers.send = node.send;
  fpeers.send_back = node.send_back;
  fpeers.hold = node.hold;
  fpeers.pull = node.pull;
  fpeers.more.push_back(node.schedule);
  fpeers.more.push_back(node.store.warmer);
  reply_processor_options rpopts;
  rpopts.store_reply_message_enable = opts.store_reply_message_enable;
  rpopts.store_host = ip1 + ":" + std::to_string(scfg.store_port);
  rpopts.max_message_size = scfg.max_message_size;
  rpopts.wall_clock = wall;
  node.reply = sys.spawn(reply_processor, rpopts, node.send, node.clients);
  fpeers.reply = node.reply;
  fpeers.more.push_back(node.reply);
  fpeers.end_transaction = node.end_transaction;
  fpeers.more.push_back(node.end_transaction);
  fpeers.more.push_back(node.transaction_check);
  fpeers.more.push_back(node.timer);
  // Replication (docs/replication.md): a master serves its slaves' asks;
  // a slave copies its master's log, found through the NameServers.
  if (opts.broker_id == 0) {
    ha_service_options haopts;
    haopts.store = *opened;
    haopts.broker_name = opts.broker_name;
    haopts.writer = node.store.commit_log;
    node.ha = sys.spawn(ha_service, haopts);
    caf::anon_send(node.store.commit_log, caf::subscribe_atom::value, node.ha);
    fpeers.ha = node.ha;
    fpeers.more.push_back(node.ha);
    metadata_service_options mdopts;
    mdopts.broker_name = opts.broker_name;
    mdopts.topics = node.topics;
    mdopts.groups = node.groups;
    mdopts.offsets = node.offsets;
    mdopts.schedule = node.schedule;
    mdopts.timer = node.timer;
    node.metadata = sys.spawn(metadata_service, std::move(mdopts));
    fpeers.metadata = node.metadata;
    fpeers.more.push_back(node.metadata);
  } else {
    slave_sync_options ssopts;
    ssopts.broker_name = opts.broker_name;
    ssopts.broker_id = opts.broker_id;
    ssopts.topics = node.topics;
    ssopts.groups = node.groups;
    ssopts.offsets = node.offsets;
    ssopts.schedule = node.schedule;
    ssopts.timer = node.timer;
    node.slave_sync = sys.spawn(slave_sync, std::move(ssopts));
    fpeers.more.push_back(node.slave_sync);
    ha_client_options hcopts;
    hcopts.writer = node.store.commit_log;
    hcopts.sync = node.slave_sync;
    hcopts.store = *opened;
    hcopts.broker_name = opts.broker_name;
    hcopts.broker_id = opts.broker_id;
    hcopts.broker_addr = ip2 + ":" + std::to_string(opts.port);
    hcopts.wall_clock = wall;
    node.ha_client = sys.spawn(ha_client, hcopts);
    *ha_client_slot = node.ha_client;
    fpeers.ha_client = node.ha_client;
    fpeers.more.push_back(node.ha_client);
  }
  // After the replication actors: brokerStatus shows the copy.
  dumpable_actor ha_part = node.ha
                             ? caf::actor_cast<dumpable_actor>(node.ha)
                             : caf::actor_cast<dumpable_actor>(node.ha_client);
  node.admin = sys.spawn(
    broker_admin_service, aopts,
    broker_admin_peers{node.topics, node.offsets, node.store.queue_service,
                       node.store.commit_log, node.send, node.pull,
                       node.schedule, node.transaction_check, node.timer,
                       node.groups, ha_part});
  fpeers.admin = node.admin;
  fpeers.on_role_change = opts.on_role_change;
  auto front = sys.spawn(broker_frontend, std::move(fpeers), ropts.broker_addr,
                         opts.broker_name, opts.cluster_name, opts.broker_id);
  node.frontend = front;
  std::vector<supervised_child> children;
  auto add = [&](const char* name, const auto& hdl,
                 std::function<caf::actor()> respawn = nullptr) {
    node.actors.push_back(caf::actor_cast<caf::actor>(hdl));
    children.push_back({name, node.actors.back(), std::move(respawn)});
  };
  // First: it stops before everything it routes to.
  add("broker_frontend", node.frontend);
  add("namesrv_registrar", node.registrar, respawn_registrar);
  add("broker_admin_service", node.admin);
  add("pull_processor", node.pull);
  add("pull_hold_service", node.hold);
  add("reply_processor", node.reply);
  add("send_processor", node.send);
  add("send_back_processor", node.send_back);
  add("end_transaction_processor", node.end_transaction);
  add("client_manager", node.clients);
  add("queue_lock_table", node.locks);
  add("subscription_group_table", node.groups);
  add("consumer_offset_table", node.offsets);
  add("topic_config_table", node.topics);
  add("schedule_service", node.schedule);
  add("transaction_check_service", node.transaction_check);
  add("timer_service", node.timer);
  if (node.ha)
    add("ha_service", node.ha);
  if (node.metadata)
    add("metadata_service", node.metadata);
  if (node.ha_client)
    add("ha_client", node.ha_client);
  if (node.slave_sync)
    add("slave_sync", node.slave_sync);
  add("queue_service", node.store.queue_service);
  if (node.store.queue_service_helper)
    add("queue_service_helper", node.store.queue_service_helper);
  add("flush_service", node.store.flusher);
  add("warm_service", node.store.warmer);
  // Last: its exit closes the store, after everything that uses it.
  add("commit_log_writer", node.store.commit_log);
  node.supervisor = sys.spawn(supervisor, std::string{"broker"},
                              std::move(children), supervisor_options{});
  // Before anyone can reach the front: it takes the first one only.
  caf::anon_send(front, caf::put_atom::value, node.supervisor);
  return node;
}

caf::actor broker_node::begin_stop(caf::actor_system& sys) {
  auto copy = *this;
  actors.clear();
  return sys.spawn(broker_stopper, std::move(copy));
}

void broker_node::open() const {
  // A replacement of the first registrar registered when it started.
  caf::anon_send(registrar, caf::open_atom::value);
}

void broker_node::stop(caf::actor_system& sys) {
  if (actors.empty())
    return;
  caf::scoped_actor self{sys};
  auto stopper = begin_stop(sys);
  self->monitor(stopper);
  self->receive(
    [](const caf::down_msg&) {},
    caf::after(unregister_wait + 2 * flush_wait + std::chrono::seconds{5}) >>
      [] { RMQ_ERROR("broker", "the stop did not finish"); });
}

} // namespace rmq
