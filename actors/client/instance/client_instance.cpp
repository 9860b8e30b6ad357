#include "actors/client/instance/client_instance.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "caf/actor_cast.hpp"
#include "caf/exit_reason.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/client_id.hpp"
#include "runtime/net/host_port.hpp"

#include "actors/client/instance/client_heartbeat_service.hpp"
#include "actors/client/instance/latency_fault_service.hpp"
#include "actors/client/instance/peer_directory.hpp"
#include "actors/client/instance/rebalance_service.hpp"
#include "actors/client/instance/route_cache.hpp"
#include "actors/client/producer/request_holder.hpp"

namespace rmq {

namespace {

/// The instances client_instance_for shares, by actor system and
/// normalized NameServer list. Weak: an instance nobody uses any more
/// stops (its deleter) and is spawned anew on the next call.
struct registry {
  std::mutex mtx;
  std::map<std::pair<caf::actor_system*, std::string>,
           std::weak_ptr<client_instance>>
    instances;
};

registry& shared_registry() {
  static registry r;
  return r;
}

/// The list sorted and without duplicates: "b;a;a" and "a;b" name the same
/// NameServers.
std::string normalized(const std::vector<host_port>& addrs) {
  std::vector<std::string> xs;
  for (auto& a : addrs)
    xs.push_back(a.to_string());
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::string result;
  for (auto& x : xs)
    result += (result.empty() ? "" : ";") + x;
  return result;
}

void stop_actors(const client_instance& inst, bool own_directory) {
  auto reason = caf::exit_reason::user_shutdown;
  caf::anon_send_exit(inst.heartbeats, reason);
  caf::anon_send_exit(inst.routes, reason);
  caf::anon_send_exit(inst.faults, reason);
  caf::anon_send_exit(inst.rebalance, reason);
  caf::anon_send_exit(inst.requests, reason);
  if (own_directory)
    caf::anon_send_exit(inst.directory, reason);
}

} // namespace

caf::expected<std::shared_ptr<client_instance>>
spawn_client_instance(caf::actor_system& sys, const client_config& cfg) {
  auto addrs = parse_host_port_list(cfg.namesrv);
  if (!addrs)
    return make_error(errc::invalid_parameter,
                      "bad NameServer list: '" + cfg.namesrv + "'");
  // Without the middleman the directory would die at its first connect
  // (CAF throws "module not loaded"), and every send would fail later with
  // an unrelated error: refuse here, with the fix in the text.
  if (!cfg.directory && !sys.has_middleman())
    return make_error(errc::invalid_parameter,
                      "the actor system has no middleman: build it from an "
                      "rmq::node_config after load_network()");
  client_instance inst;
  inst.config = cfg;
  inst.client_id = make_client_id(cfg.client_ip, cfg.instance_name);
  bool own_directory = !cfg.directory;
  if (cfg.directory) {
    inst.directory = *cfg.directory;
  } else {
    peer_directory_config dc;
    dc.connect_timeout = cfg.connect_timeout;
    inst.directory = sys.spawn(peer_directory, std::move(dc));
  }
  route_cache_config rc;
  for (auto& a : *addrs)
    rc.namesrv_addrs.push_back(a.to_string());
  rc.directory = inst.directory;
  rc.poll_interval = cfg.poll_namesrv_interval;
  rc.connect_timeout = cfg.connect_timeout;
  rc.request_timeout = cfg.request_timeout;
  inst.routes = sys.spawn(route_cache, std::move(rc));
  // A lost broker refreshes the routes it served.
  caf::anon_send(inst.directory, caf::subscribe_atom::value,
                 caf::actor_cast<peer_listener_actor>(inst.routes));
  // Before the heartbeat sender, which forwards pushed replies to it.
  inst.requests = sys.spawn(request_holder);
  client_heartbeat_config hc;
  hc.client_id = inst.client_id;
  hc.routes = inst.routes;
  hc.directory = inst.directory;
  hc.interval = cfg.heartbeat_interval;
  hc.connect_timeout = cfg.connect_timeout;
  hc.request_timeout = cfg.request_timeout;
  hc.requests = inst.requests;
  inst.heartbeats = sys.spawn(client_heartbeat_service, std::move(hc));
  inst.faults = sys.spawn(latency_fault_service, cfg.faults);
  rebalance_service_config rb;
  rb.client_id = inst.client_id;
  rb.routes = inst.routes;
  rb.directory = inst.directory;
  rb.interval = cfg.rebalance_interval;
  rb.request_timeout = cfg.request_timeout;
  inst.rebalance = sys.spawn(rebalance_service, std::move(rb));
  // A broker's NOTIFY_CONSUMER_IDS_CHANGED reaches the heartbeat sender
  // (the client's channel), which forwards it here.
  caf::anon_send(inst.heartbeats, caf::subscribe_atom::value,
                 caf::actor_cast<caf::actor>(inst.rebalance));
  // The last user's release stops the actors, so a process whose producers
  // all shut down keeps no timers running.
  return std::shared_ptr<client_instance>(new client_instance(std::move(inst)),
                                          [own_directory](client_instance* p) {
                                            stop_actors(*p, own_directory);
                                            delete p;
                                          });
}

caf::expected<std::shared_ptr<client_instance>>
client_instance_for(caf::actor_system& sys, const client_config& cfg) {
  auto addrs = parse_host_port_list(cfg.namesrv);
  if (!addrs)
    return make_error(errc::invalid_parameter,
                      "bad NameServer list: '" + cfg.namesrv + "'");
  auto key = std::make_pair(&sys, normalized(*addrs));
  auto& reg = shared_registry();
  std::lock_guard<std::mutex> guard{reg.mtx};
  // Forget instances nobody holds (their actors are stopped already).
  for (auto i = reg.instances.begin(); i != reg.instances.end();)
    i = i->second.expired() ? reg.instances.erase(i) : std::next(i);
  if (auto i = reg.instances.find(key); i != reg.instances.end())
    if (auto inst = i->second.lock())
      return inst;
  auto inst = spawn_client_instance(sys, cfg);
  if (inst)
    reg.instances[key] = *inst;
  return inst;
}

void stop_client_instance(caf::actor_system& sys,
                          const std::shared_ptr<client_instance>& inst) {
  if (!inst)
    return;
  {
    auto& reg = shared_registry();
    std::lock_guard<std::mutex> guard{reg.mtx};
    for (auto i = reg.instances.begin(); i != reg.instances.end();) {
      auto held = i->second.lock();
      i = i->first.first == &sys && held == inst ? reg.instances.erase(i)
                                                 : std::next(i);
    }
  }
  stop_actors(*inst, !inst->config.directory);
}

} // namespace rmq
