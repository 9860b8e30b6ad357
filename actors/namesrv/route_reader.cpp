#include "actors/namesrv/route_reader.hpp"

#include <chrono>
#include <memory>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/request_failure.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* route_reader_state::name = "route_reader";

namespace {

using self_ptr = route_reader_actor::stateful_pointer<route_reader_state>;

constexpr auto table_timeout = std::chrono::seconds{10};

void remember(self_ptr self, const std::string& topic, uint64_t generation,
              const topic_route_data& route) {
  auto& st = self->state;
  if (st.max_entries == 0 || generation != st.generation)
    return;
  if (st.cache.size() >= st.max_entries)
    st.cache.clear(); // crude but bounded; routes refill on demand
  st.cache.emplace(topic, route);
}

caf::result<topic_route_data> fetch(self_ptr self, const std::string& topic) {
  auto rp = self->make_response_promise<topic_route_data>();
  auto route = std::make_shared<topic_route_data>();
  auto generation = self->state.generation;
  auto fail = [=](const caf::error& err) mutable {
    log_request_failure("namesrv", "route of " + topic, err);
    rp.deliver(err);
  };
  self->request(self->state.topics, table_timeout, caf::get_atom::value, topic)
    .then(
      [=](std::vector<queue_data>& qds) mutable {
        std::vector<std::string> names;
        for (auto& qd : qds)
          names.push_back(qd.broker_name);
        route->queue_datas = std::move(qds);
        self
          ->request(self->state.addrs, table_timeout, caf::get_atom::value,
                    names)
          .then(
            [=](std::vector<broker_data>& bds) mutable {
              // RocketMQ: a route needs at least one queue and one broker.
              if (bds.empty()) {
                rp.deliver(make_error(errc::topic_not_exist,
                                      "no broker serves topic " + topic));
                return;
              }
              std::vector<std::string> addrs;
              for (auto& bd : bds)
                for (auto& kvp : bd.broker_addrs)
                  addrs.push_back(kvp.second);
              route->broker_datas = std::move(bds);
              self
                ->request(self->state.filters, table_timeout,
                          caf::get_atom::value, addrs)
                .then(
                  [=](std::map<std::string, std::vector<std::string>>&
                        filters) mutable {
                    route->filter_server_table = std::move(filters);
                    remember(self, topic, generation, *route);
                    rp.deliver(std::move(*route));
                  },
                  fail);
            },
            fail);
      },
      fail);
  return rp;
}

} // namespace

route_reader_actor::behavior_type
route_reader(route_reader_actor::stateful_pointer<route_reader_state> self,
             broker_addr_table_actor addrs, topic_queue_table_actor topics,
             filter_server_table_actor filters, size_t max_entries) {
  auto& st = self->state;
  st.addrs = std::move(addrs);
  st.topics = std::move(topics);
  st.filters = std::move(filters);
  st.max_entries = max_entries;
  return {
    [=](const get_route_info_request& req) -> caf::result<topic_route_data> {
      auto& st = self->state;
      auto i = st.cache.find(req.topic);
      if (i != st.cache.end()) {
        ++st.hits;
        return i->second;
      }
      ++st.misses;
      return fetch(self, req.topic);
    },
    [=](routes_changed_atom) {
      auto& st = self->state;
      ++st.generation;
      ++st.invalidations;
      st.cache.clear();
    },
    dump_handler(self),
  };
}

nlohmann::json route_reader_state::dump_fields() const {
  return {{"cached_routes", cache.size()},
          {"max_entries", max_entries},
          {"generation", generation},
          {"hits", hits},
          {"misses", misses},
          {"invalidations", invalidations}};
}

} // namespace rmq
