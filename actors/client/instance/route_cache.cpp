#include "actors/client/instance/route_cache.hpp"

#include <algorithm>
#include <random>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/sec.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* route_cache_state::name = "route_cache";

namespace {

constexpr const char* component = "route_cache";

using cache_ptr = route_cache_actor::stateful_pointer<route_cache_state>;

int64_t ms(caf::timespan x) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(x).count();
}

topic_route_data sorted(topic_route_data x) {
  std::sort(x.queue_datas.begin(), x.queue_datas.end(),
            [](const queue_data& a, const queue_data& b) {
              return a.broker_name < b.broker_name;
            });
  std::sort(x.broker_datas.begin(), x.broker_datas.end(),
            [](const broker_data& a, const broker_data& b) {
              return a.broker_name < b.broker_name;
            });
  return x;
}

void attempt(cache_ptr self, const std::string& topic);

void finish(cache_ptr self, const std::string& topic,
            caf::expected<topic_route_data> result) {
  auto& st = self->state;
  auto i = st.fetching.find(topic);
  if (i == st.fetching.end())
    return;
  auto waiters = std::move(i->second.waiters);
  st.fetching.erase(i);
  for (auto& rp : waiters) {
    if (result)
      rp.deliver(*result);
    else
      rp.deliver(result.error());
  }
}

void fetched(cache_ptr self, const std::string& topic, topic_route_data route) {
  auto& st = self->state;
  auto now = self->clock().now();
  auto i = st.topics.find(topic);
  if (i == st.topics.end()) {
    cached_route c;
    c.route = route;
    c.updated = now;
    c.fetches = 1;
    st.topics.emplace(topic, std::move(c));
  } else {
    auto& c = i->second;
    ++c.fetches;
    c.updated = now;
    c.last_error.clear();
    if (route_changed(c.route, route)) {
      c.route = route;
      ++c.changes;
      RMQ_INFO(component, "route of " + topic + " changed");
      for (auto& l : st.listeners)
        self->send(l, route_atom::value, topic, route);
    }
  }
  finish(self, topic, std::move(route));
}

void failed(cache_ptr self, const std::string& topic, size_t idx,
            const caf::error& err) {
  auto& st = self->state;
  auto i = st.fetching.find(topic);
  if (i == st.fetching.end())
    return;
  auto& ns = st.namesrvs[idx];
  auto what = "route of " + topic + " from " + ns.addr;
  if (!is_system_failure(err)) {
    log_request_failure(component, what, err);
    // The NameServer answered (topic_not_exist, a refused name): an
    // answer, not an outage. A cached route stays, as in RocketMQ.
    auto c = st.topics.find(topic);
    if (c != st.topics.end()) {
      ++c->second.failures;
      c->second.last_error = describe(err);
    }
    finish(self, topic, err);
    return;
  }
  ++ns.failures;
  ns.last_error = describe(err);
  // A NameServer that is down fails every topic's fetch: only the first
  // failure of a streak is logged, the dump counts the rest.
  if (ns.streak++ == 0)
    log_request_failure(component, what, err);
  // A timed-out connection may be stuck: the next request opens a new one
  // (RocketMQ closes a channel whose request timed out).
  if (err == caf::sec::request_timeout)
    self->send(st.cfg.directory, caf::delete_atom::value, ns.addr);
  // Other fetches may have rotated already: move on from `idx` only once.
  if (st.index == idx) {
    st.index = (idx + 1) % st.namesrvs.size();
    ++st.rotations;
    if (ns.streak == 1)
      RMQ_INFO(component, "NameServer " + ns.addr + " failed (" + describe(err)
                            + "), now asking " + st.namesrvs[st.index].addr);
  }
  auto& f = i->second;
  f.last_error = ns.addr + ": " + describe(err);
  if (f.tries_left > 0) {
    attempt(self, topic);
    return;
  }
  auto c = st.topics.find(topic);
  if (c != st.topics.end()) {
    // Every NameServer is down: the last good route still serves.
    ++c->second.failures;
    c->second.last_error = f.last_error;
    finish(self, topic, c->second.route);
    return;
  }
  finish(self, topic,
         make_error(errc::service_not_available,
                    "no NameServer answered for topic " + topic
                      + ", last: " + f.last_error));
}

void attempt(cache_ptr self, const std::string& topic) {
  auto& st = self->state;
  auto& f = st.fetching[topic];
  --f.tries_left;
  auto idx = st.index;
  auto& ns = st.namesrvs[idx];
  ++ns.requests;
  auto timeout = st.cfg.request_timeout;
  // The directory bounds the connect itself; the margin covers its answer.
  self
    ->request(st.cfg.directory,
              st.cfg.connect_timeout + std::chrono::seconds{1},
              caf::connect_atom::value, route_atom::value, ns.addr)
    .then(
      [=](client_namesrv_actor& hdl) {
        self->request(hdl, timeout, get_route_info_request{topic})
          .then(
            [=](topic_route_data& route) {
              self->state.namesrvs[idx].streak = 0;
              fetched(self, topic, std::move(route));
            },
            [=](const caf::error& err) { failed(self, topic, idx, err); });
      },
      [=](const caf::error& err) { failed(self, topic, idx, err); });
}

/// Starts a fetch of `topic`, or joins the one in flight.
void fetch(cache_ptr self, const std::string& topic,
           caf::typed_response_promise<topic_route_data>* rp = nullptr) {
  auto& st = self->state;
  auto [i, fresh] = st.fetching.try_emplace(topic);
  if (rp != nullptr)
    i->second.waiters.push_back(*rp);
  if (!fresh)
    return;
  i->second.tries_left = st.namesrvs.size();
  attempt(self, topic);
}

bool serves(const topic_route_data& route, const std::string& addr) {
  for (auto& b : route.broker_datas)
    for (auto& [id, a] : b.broker_addrs)
      if (a == addr)
        return true;
  return false;
}

void arm(cache_ptr self) {
  if (self->state.cfg.poll_interval.count() > 0)
    self->delayed_send(self, self->state.cfg.poll_interval,
                       caf::tick_atom::value);
}

} // namespace

bool route_changed(const topic_route_data& x, const topic_route_data& y) {
  return sorted(x) != sorted(y);
}

std::vector<broker_data>
brokers_of(const std::map<std::string, cached_route>& routes) {
  std::map<std::string, broker_data> by_name;
  for (auto& [topic, c] : routes)
    for (auto& b : c.route.broker_datas) {
      auto [i, fresh] = by_name.try_emplace(b.broker_name, b);
      if (!fresh)
        i->second.broker_addrs.insert(b.broker_addrs.begin(),
                                      b.broker_addrs.end());
    }
  std::vector<broker_data> result;
  for (auto& [name, b] : by_name)
    result.push_back(std::move(b));
  return result;
}

route_cache_actor::behavior_type route_cache(cache_ptr self,
                                             route_cache_config cfg) {
  auto& st = self->state;
  st.clock = &self->clock();
  for (auto& addr : cfg.namesrv_addrs) {
    namesrv_stats ns;
    ns.addr = addr;
    st.namesrvs.push_back(std::move(ns));
  }
  if (!st.namesrvs.empty()) {
    // RocketMQ starts at a random index so that clients spread over the
    // NameServers.
    std::mt19937 gen{cfg.seed ? *cfg.seed : std::random_device{}()};
    st.index = gen() % st.namesrvs.size();
  }
  st.cfg = std::move(cfg);
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& ls = self->state.listeners;
    ls.erase(std::remove_if(ls.begin(), ls.end(),
                            [&](const route_listener_actor& l) {
                              return l.address() == dm.source;
                            }),
             ls.end());
  });
  arm(self);
  return {
    [=](route_atom, const std::string& topic)
      -> caf::typed_response_promise<topic_route_data> {
      auto rp = self->make_response_promise<topic_route_data>();
      auto& st = self->state;
      if (st.namesrvs.empty()) {
        rp.deliver(make_error(errc::invalid_parameter, "no NameServer"));
        return rp;
      }
      auto i = st.topics.find(topic);
      if (i != st.topics.end())
        rp.deliver(i->second.route);
      else
        fetch(self, topic, &rp);
      return rp;
    },
    [=](refresh_atom, const std::string& topic) {
      if (!self->state.namesrvs.empty())
        fetch(self, topic);
    },
    [=](brokers_atom) { return brokers_of(self->state.topics); },
    [=](caf::subscribe_atom, const route_listener_actor& l) {
      auto& ls = self->state.listeners;
      if (!l || std::find(ls.begin(), ls.end(), l) != ls.end())
        return;
      ls.push_back(l);
      self->monitor(l);
    },
    [=](peer_lost_atom, const std::string& addr) {
      std::vector<std::string> hit;
      for (auto& [topic, c] : self->state.topics)
        if (serves(c.route, addr))
          hit.push_back(topic);
      for (auto& topic : hit)
        fetch(self, topic);
    },
    [=](caf::tick_atom) {
      auto& st = self->state;
      ++st.ticks;
      std::vector<std::string> all;
      for (auto& [topic, c] : st.topics)
        all.push_back(topic);
      for (auto& topic : all)
        fetch(self, topic);
      arm(self);
    },
    dump_handler(self),
  };
}

nlohmann::json route_cache_state::dump_fields() const {
  auto ns = nlohmann::json::array();
  for (auto& n : namesrvs)
    ns.push_back({{"address", n.addr},
                  {"requests", n.requests},
                  {"failures", n.failures},
                  {"last_error", n.last_error}});
  auto rows = nlohmann::json::array();
  for (auto& [topic, c] : topics) {
    auto brokers = nlohmann::json::array();
    for (auto& b : c.route.broker_datas)
      brokers.push_back(b.broker_name);
    int64_t write_queues = 0;
    for (auto& q : c.route.queue_datas)
      write_queues += q.write_queue_nums;
    rows.push_back({
      {"topic", topic},
      {"brokers", brokers},
      {"write_queues", write_queues},
      {"idle_ms", clock != nullptr ? ms(clock->now() - c.updated) : 0},
      {"fetches", c.fetches},
      {"failures", c.failures},
      {"changes", c.changes},
      {"last_error", c.last_error},
    });
  }
  auto in_flight = nlohmann::json::array();
  for (auto& [topic, f] : fetching)
    in_flight.push_back(topic);
  return {
    {"namesrvs", ns},
    {"index", index},
    {"current", namesrvs.empty() ? std::string{} : namesrvs[index].addr},
    {"rotations", rotations},
    {"ticks", ticks},
    {"poll_interval_ms", ms(cfg.poll_interval)},
    {"request_timeout_ms", ms(cfg.request_timeout)},
    {"topics", rows},
    {"fetching", in_flight},
    {"listeners", listeners.size()},
  };
}

} // namespace rmq
