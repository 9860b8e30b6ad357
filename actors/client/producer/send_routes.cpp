// The topics a send loop knows (RocketMQ DefaultMQProducerImpl
// tryToFindTopicPublishInfo): the route from the instance's route cache,
// sends that wait for it, the default topic's route for a new topic;
// actors/client/producer/send_loop_parts.hpp.
#include "actors/client/producer/send_loop_parts.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <utility>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/sec.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/client_message_codec.hpp"
#include "runtime/client/publish_queues.hpp"
#include "runtime/client/queue_selector.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/reply_message.hpp"
#include "runtime/net/host_port.hpp"

#include "actors/common/dump.hpp"

namespace rmq::send_loop_detail {

// -- topics -------------------------------------------------------------------

void set_route(loop_ptr self, const std::string& topic,
               const topic_route_data& route, bool from_default) {
  auto& st = self->state;
  auto [i, added] = st.topics.try_emplace(topic);
  auto& entry = i->second;
  if (added)
    entry.index = st.cfg.start_index ? st.cfg.start_index() : st.rng();
  entry.route = route;
  entry.from_default = from_default;
  entry.fetched_at = self->clock().now();
  entry.queues = from_default
                   ? default_publish_queues(topic, route,
                                            st.cfg.default_topic_queue_nums)
                   : publish_queues(topic, route);
}

void resume_waiters(loop_ptr self, const std::string& topic,
                    const caf::error& err) {
  auto& st = self->state;
  auto i = st.waiting_for_route.find(topic);
  if (i == st.waiting_for_route.end())
    return;
  auto waiters = std::move(i->second);
  st.waiting_for_route.erase(i);
  for (auto& f : waiters)
    f(err);
}

/// Fetches the topic's route, else the default topic's (the broker then
/// creates the topic on the first send, RocketMQ
/// tryToFindTopicPublishInfo).
void fetch_route(loop_ptr self, const std::string& topic,
                 caf::timespan timeout) {
  auto& st = self->state;
  self->request(st.inst.routes, timeout, route_atom::value, topic)
    .then(
      [=](const topic_route_data& route) {
        set_route(self, topic, route, false);
        resume_waiters(self, topic, caf::error{});
      },
      [=](const caf::error& err) {
        log_request_failure(component, "route of " + topic, err);
        auto& st = self->state;
        auto known = st.topics.find(topic);
        if (known != st.topics.end()) {
          // A stale entry beats none while the NameServers are away (or,
          // for a TBW102 entry, while the topic has no route yet): asked
          // again after the next poll interval, not at every send.
          known->second.fetched_at = self->clock().now();
          resume_waiters(self, topic, caf::error{});
          return;
        }
        if (err != errc::topic_not_exist) {
          resume_waiters(self, topic, err);
          return;
        }
        auto fallback = st.cfg.create_topic_key;
        self->request(st.inst.routes, timeout, route_atom::value, fallback)
          .then(
            [=](const topic_route_data& route) {
              set_route(self, topic, route, true);
              resume_waiters(self, topic, caf::error{});
            },
            [=](const caf::error& err2) {
              log_request_failure(component, "route of " + fallback, err2);
              resume_waiters(
                self, topic,
                make_error(errc::topic_not_exist,
                           "No route info of this topic: " + topic));
            });
      });
}

/// Runs `f` once the topic's queues are known (or with the error that
/// keeps them unknown).
void with_route(loop_ptr self, const std::string& topic, time_point deadline,
                std::function<void(const caf::error&)> f) {
  auto& st = self->state;
  auto now = self->clock().now();
  auto i = st.topics.find(topic);
  if (i != st.topics.end()
      && !(i->second.from_default
           && now - i->second.fetched_at
                >= st.inst.config.poll_namesrv_interval)) {
    f(caf::error{});
    return;
  }
  auto& waiters = st.waiting_for_route[topic];
  waiters.push_back(std::move(f));
  if (waiters.size() == 1) {
    auto timeout = std::max<caf::timespan>(deadline - now,
                                           std::chrono::milliseconds{1});
    fetch_route(self, topic, timeout);
  }
}

} // namespace rmq::send_loop_detail
