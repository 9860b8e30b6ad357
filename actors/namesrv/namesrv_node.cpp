#include "actors/namesrv/namesrv_node.hpp"

#include "caf/actor_cast.hpp"
#include "caf/actor_system.hpp"
#include "caf/after.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/send.hpp"

#include "actors/namesrv/namesrv_frontend.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

namespace rmq {

namesrv_node spawn_namesrv(caf::actor_system& sys,
                           const namesrv_options& opts) {
  namesrv_tables t;
  t.addrs = sys.spawn(broker_addr_table);
  t.clusters = sys.spawn(cluster_table);
  t.live = sys.spawn(broker_live_table, opts.broker_timeout);
  t.topics = sys.spawn(topic_queue_table);
  t.filters = sys.spawn(filter_server_table);
  t.kv = opts.detach_io
           ? sys.spawn<caf::detached>(kv_config_table, opts.kv_config_path)
           : sys.spawn(kv_config_table, opts.kv_config_path);
  route_writer_options wopts;
  wopts.delete_topic_with_broker_registration
    = opts.delete_topic_with_broker_registration;
  wopts.return_order_topic_config_to_broker
    = opts.return_order_topic_config_to_broker;
  auto reader = sys.spawn(route_reader, t.addrs, t.topics, t.filters,
                          opts.route_cache_entries);
  auto writer = sys.spawn(route_writer, t, reader, wopts);
  auto batcher = sys.spawn(unregistration_batcher, writer,
                           opts.unregister_queue_capacity);
  auto scanner = sys.spawn(scan_timer, opts.scan_interval, t.live, batcher);
  namesrv_frontend_options fopts;
  fopts.enable_all_topic_list = opts.enable_all_topic_list;
  fopts.enable_topic_list = opts.enable_topic_list;
  fopts.order_message_enable = opts.order_message_enable;
  fopts.listen = opts.listen_addr + ":" + std::to_string(opts.port);
  fopts.config = opts;
  namesrv_node node;
  node.frontend = sys.spawn(namesrv_frontend, t, reader, writer, batcher,
                            scanner, fopts);
  std::vector<supervised_child> children;
  // No actor of a NameServer can be respawned: each holds state (tables,
  // the writer's and batcher's pending work, the front actor's watched
  // channels and settings, the scan timer's interval as set by
  // UPDATE_NAMESRV_CONFIG), or others hold its handle and would need
  // rewiring (the route reader, whose cache is only a cache; the scan
  // timer). So any exit stops the node.
  auto add = [&](const char* name, const auto& hdl) {
    node.actors.push_back(caf::actor_cast<caf::actor>(hdl));
    children.push_back({name, node.actors.back(), nullptr});
  };
  add("namesrv_frontend", node.frontend);
  add("scan_timer", scanner);
  add("unregistration_batcher", batcher);
  add("route_reader", reader);
  add("route_writer", writer);
  add("broker_addr_table", t.addrs);
  add("cluster_table", t.clusters);
  add("broker_live_table", t.live);
  add("topic_queue_table", t.topics);
  add("filter_server_table", t.filters);
  add("kv_config_table", t.kv);
  node.kv = caf::actor_cast<caf::actor>(t.kv);
  node.supervisor = sys.spawn(supervisor, std::string{"namesrv"},
                              std::move(children), supervisor_options{});
  return node;
}

void namesrv_node::stop(caf::actor_system& sys) {
  if (actors.empty())
    return;
  // The KV config is the only state that outlives the process.
  caf::scoped_actor self{sys};
  self->monitor(supervisor);
  self
    ->request(caf::actor_cast<kv_config_table_actor>(kv),
              std::chrono::seconds{5}, save_atom::value)
    .receive([](caf::ok_atom) {},
             [](const caf::error& err) {
               RMQ_ERROR("namesrv",
                         "saving the KV config failed: " << describe(err));
             });
  // The supervisor goes first, or it would take the exits below for
  // failures.
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  self->receive([](const caf::down_msg&) {},
                caf::after(std::chrono::seconds{5}) >>
                  [] { RMQ_ERROR("namesrv", "the supervisor did not stop"); });
  for (auto& hdl : actors)
    caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
  actors.clear();
}

} // namespace rmq
