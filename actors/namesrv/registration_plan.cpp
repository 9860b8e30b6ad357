#include "actors/namesrv/registration_plan.hpp"

namespace rmq {

namespace {

const live_summary* find_live(const std::vector<live_summary>& live,
                              const std::string& addr) {
  for (auto& row : live)
    if (row.broker_addr == addr && row.exists)
      return &row;
  return nullptr;
}

} // namespace

registration_plan plan_registration(const register_broker_request& req,
                                    const broker_data* current,
                                    const std::vector<live_summary>& live,
                                    bool delete_topic_with_registration) {
  registration_plan plan;
  bool register_first = current == nullptr;
  auto& group = plan.group;
  if (current) {
    group = *current;
  } else {
    group.cluster = req.cluster_name;
    group.broker_name = req.broker_name;
  }
  group.enable_acting_master = req.enable_acting_master;
  group.zone_name = req.zone_name; // RocketMQ: an empty zone clears it
  auto& addrs = group.broker_addrs;
  // One address, one record: a slave that became master (<1,A> -> <0,A>)
  // loses its old id.
  for (auto i = addrs.begin(); i != addrs.end();)
    i = i->second == req.broker_addr && i->first != req.broker_id
          ? addrs.erase(i)
          : std::next(i);
  auto owner = addrs.find(req.broker_id);
  if (owner != addrs.end() && owner->second != req.broker_addr) {
    auto old = find_live(live, owner->second);
    if (old && old->version.state_version > req.version.state_version) {
      plan.rejected = true;
      plan.reject_reason = "broker id " + std::to_string(req.broker_id) + " of "
                           + req.broker_name + " is held by " + owner->second
                           + " with a newer state version";
      return plan;
    }
  }
  auto& slot = addrs[req.broker_id];
  register_first = register_first || slot.empty();
  slot = req.broker_addr;
  sync_remoting_addrs(group);
  if (!req.remoting_addr.empty())
    group.remoting_addrs[req.broker_id] = req.remoting_addr;
  else
    group.remoting_addrs.erase(req.broker_id);
  bool is_master = req.broker_id == master_id;
  // RocketMQ: the slave with the smallest id of a group without a master is
  // its prime slave and writes the group's topic routes, acting master or
  // not (every broker of ours is a "new version" one, which sends the flag).
  // Only an acting-master group's prime slave loses the write bit.
  bool is_prime_slave = !is_master && addrs.begin()->first == req.broker_id;
  if (is_master || is_prime_slave) {
    auto self = find_live(live, req.broker_addr);
    bool changed = !self || !(self->version == req.version);
    plan.touch_topics = true;
    plan.topics = broker_topics_update{
      req.broker_name, req.topics, register_first || changed,
      delete_topic_with_registration,
      is_prime_slave && req.enable_acting_master};
  }
  if (!is_master) {
    auto master = addrs.find(master_id);
    if (master != addrs.end())
      if (auto live_master = find_live(live, master->second)) {
        plan.result.master_addr = master->second;
        plan.result.ha_server_addr = live_master->ha_server_addr;
      }
  }
  return plan;
}

} // namespace rmq
