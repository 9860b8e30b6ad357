#include "actors/client/instance/rebalance_service.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/allocate_strategy.hpp"
#include "runtime/client/subscribe_queues.hpp"
#include "runtime/common/request_failure.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* rebalance_service_state::name = "rebalance_service";

namespace {

constexpr const char* component = "rebalance_service";

using rebalance_ptr
  = rebalance_service_actor::stateful_pointer<rebalance_service_state>;

/// The member list, or nullopt and why not.
using members_callback
  = std::function<void(std::optional<std::vector<std::string>>, std::string)>;

/// Asks the brokers at `addrs`, from `index` on, for `group`'s members
/// until one answers.
void ask_members(rebalance_ptr self,
                 std::shared_ptr<std::vector<std::string>> addrs, size_t index,
                 std::string group, std::string last_error,
                 members_callback k) {
  if (index >= addrs->size()) {
    k(std::nullopt, last_error.empty() ? "no broker with a master"
                                       : "no broker answered: " + last_error);
    return;
  }
  auto& cfg = self->state.cfg;
  auto addr = (*addrs)[index];
  auto timeout = cfg.request_timeout;
  auto next = [=](const caf::error& err) {
    ++self->state.member_list_failures;
    log_request_failure(component, "consumer list of " + group + " at " + addr,
                        err);
    ask_members(self, addrs, index + 1, group, describe(err), k);
  };
  self
    ->request(cfg.directory, timeout + std::chrono::seconds{1},
              caf::connect_atom::value, addr)
    .then(
      [=](client_broker_actor& broker) {
        self->request(broker, timeout, get_consumer_list_request{group})
          .then(
            [=](consumer_list& xs) {
              k(std::move(xs.client_ids), std::string{});
            },
            next);
      },
      next);
}

/// Records and sends one topic's assignment.
void assign(rebalance_ptr self, const caf::actor_addr& addr,
            const std::string& topic, std::vector<message_queue> queues) {
  auto i = self->state.consumers.find(addr);
  if (i == self->state.consumers.end())
    return;
  i->second.kept.erase(topic);
  i->second.owned[topic] = queues;
  self->send(i->second.target, assign_atom::value,
             queue_assignment{topic, std::move(queues)});
}

/// Keeps the previous assignment of `topic` (a transient failure).
void keep(rebalance_ptr self, const caf::actor_addr& addr,
          const std::string& topic, std::string why) {
  auto i = self->state.consumers.find(addr);
  if (i != self->state.consumers.end())
    i->second.kept[topic] = std::move(why);
}

/// Rebalances one topic of one consumer; `done` runs in every case.
void rebalance_topic(rebalance_ptr self, caf::actor_addr addr,
                     std::string topic, std::function<void()> done) {
  auto& cfg = self->state.cfg;
  self->request(cfg.routes, cfg.request_timeout, route_atom::value, topic)
    .then(
      [=](topic_route_data& route) {
        auto i = self->state.consumers.find(addr);
        if (i == self->state.consumers.end()) {
          done();
          return;
        }
        auto queues = subscribe_queues(topic, route);
        auto sub = i->second.sub;
        if (sub.model == message_model::broadcasting) {
          assign(self, addr, topic, std::move(queues));
          done();
          return;
        }
        // The nodes of the topic's brokers in broker-name order, each
        // group's master first, then its slaves: the first that answers
        // names the members, so a master that is in the route but cannot
        // be reached (its host lost) leaves the question to its slave.
        auto addrs = std::make_shared<std::vector<std::string>>();
        auto brokers = route.broker_datas;
        std::sort(brokers.begin(), brokers.end(),
                  [](const broker_data& x, const broker_data& y) {
                    return x.broker_name < y.broker_name;
                  });
        for (auto& b : brokers)
          for (auto& [id, a] : b.broker_addrs)
            if (!a.empty())
              addrs->push_back(a);
        ask_members(self, addrs, 0, sub.group, std::string{},
                    [=](std::optional<std::vector<std::string>> members,
                        std::string why) {
                      if (!members || members->empty()) {
                        keep(self, addr, topic,
                             members ? "the broker knows no member" : why);
                        done();
                        return;
                      }
                      std::sort(members->begin(), members->end());
                      auto strategy = find_allocate_strategy(sub.strategy);
                      if (!strategy)
                        strategy = find_allocate_strategy("AVG");
                      assign(self, addr, topic,
                             strategy->allocate(sub.group,
                                                self->state.cfg.client_id,
                                                queues, *members));
                      done();
                    });
      },
      [=](const caf::error& err) {
        log_request_failure(component, "route of " + topic, err);
        keep(self, addr, topic, "route: " + describe(err));
        done();
      });
}

/// One round for every consumer of `group` (or another one after the
/// round in flight).
void run_group(rebalance_ptr self, const std::string& group) {
  auto& st = self->state;
  if (st.running.count(group) > 0) {
    st.again.insert(group);
    return;
  }
  std::vector<std::pair<caf::actor_addr, std::string>> work;
  for (auto& [addr, e] : st.consumers) {
    if (e.sub.group != group)
      continue;
    ++e.rounds;
    for (auto& topic : e.sub.topics)
      work.emplace_back(addr, topic);
  }
  if (work.empty())
    return;
  st.running.insert(group);
  auto pending = std::make_shared<size_t>(work.size());
  auto one_done = [self, pending, group] {
    if (--*pending > 0)
      return;
    auto& st = self->state;
    st.running.erase(group);
    if (st.again.erase(group) > 0)
      run_group(self, group);
  };
  for (auto& [addr, topic] : work)
    rebalance_topic(self, addr, topic, one_done);
}

void run_all(rebalance_ptr self) {
  std::set<std::string> groups;
  for (auto& [addr, e] : self->state.consumers)
    groups.insert(e.sub.group);
  for (auto& g : groups)
    run_group(self, g);
}

} // namespace

rebalance_service_actor::behavior_type rebalance_service(
  rebalance_service_actor::stateful_pointer<rebalance_service_state> self,
  rebalance_service_config cfg) {
  self->state.cfg = std::move(cfg);
  self->set_down_handler(
    [=](caf::down_msg& dm) { self->state.consumers.erase(dm.source); });
  if (self->state.cfg.interval.count() > 0)
    self->delayed_send(self, self->state.cfg.interval, tick_atom::value);
  return {
    [=](caf::put_atom, rebalance_subscription& sub,
        rebalance_target_actor& target) -> caf::result<caf::ok_atom> {
      if (sub.group.empty() || !target)
        return make_error(errc::invalid_parameter,
                          "a consumer needs a group and a handle");
      if (!find_allocate_strategy(sub.strategy))
        return make_error(errc::invalid_parameter,
                          "unknown allocate strategy '" + sub.strategy + "'");
      auto addr = target.address();
      auto& e = self->state.consumers[addr];
      if (!e.target)
        self->monitor(target);
      e.target = std::move(target);
      auto group = sub.group;
      e.sub = std::move(sub);
      run_group(self, group);
      return caf::ok_atom::value;
    },
    [=](caf::delete_atom, const rebalance_target_actor& target) {
      if (self->state.consumers.erase(target.address()) > 0)
        self->demonitor(target.address());
    },
    [=](rebalance_atom) { run_all(self); },
    [=](const consumer_ids_changed& x) {
      ++self->state.notifications;
      run_group(self, x.group);
    },
    [=](tick_atom) {
      ++self->state.ticks;
      run_all(self);
      self->delayed_send(self, self->state.cfg.interval, tick_atom::value);
    },
    dump_handler(self),
  };
}

nlohmann::json rebalance_service_state::dump_fields() const {
  auto cs = nlohmann::json::array();
  for (auto& [addr, e] : consumers) {
    auto owned_json = nlohmann::json::object();
    for (auto& [topic, qs] : e.owned)
      owned_json[topic] = qs;
    cs.push_back({{"group", e.sub.group},
                  {"model", e.sub.model},
                  {"topics", e.sub.topics},
                  {"strategy", e.sub.strategy},
                  {"owned", owned_json},
                  {"kept", e.kept},
                  {"rounds", e.rounds}});
  }
  return {
    {"client_id", cfg.client_id},
    {"interval_ms",
     std::chrono::duration_cast<std::chrono::milliseconds>(cfg.interval)
       .count()},
    {"consumers", cs},
    {"running", running},
    {"ticks", ticks},
    {"notifications", notifications},
    {"member_list_failures", member_list_failures},
  };
}

} // namespace rmq
