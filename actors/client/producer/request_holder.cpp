#include "actors/client/producer/request_holder.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/reply_message.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* request_holder_state::name = "request_holder";

namespace {

constexpr const char* component = "request_holder";

using self_ptr = request_holder_actor::stateful_pointer<request_holder_state>;
using time_point = caf::actor_clock::time_point;

int64_t to_ms(caf::timespan x) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(x).count();
}

/// Makes sure a timer fires by `deadline` (one is already on its way when
/// an earlier or equal one is).
void arm(self_ptr self, time_point deadline) {
  auto& timers = self->state.timers;
  if (!timers.empty() && *timers.begin() <= deadline)
    return;
  timers.insert(deadline);
  auto delay = std::max<caf::timespan>(deadline - self->clock().now(),
                                       caf::timespan{0});
  self->delayed_send(self, delay, caf::tick_atom::value);
}

/// Ends every wait past its deadline and arms the timer for the next one.
void expire(self_ptr self) {
  auto& st = self->state;
  auto now = self->clock().now();
  st.timers.erase(st.timers.begin(), st.timers.upper_bound(now));
  std::optional<time_point> next;
  std::vector<std::pair<std::string, waiting_request>> expired;
  for (auto i = st.waiting.begin(); i != st.waiting.end();) {
    if (i->second.deadline <= now) {
      expired.emplace_back(i->first, std::move(i->second));
      i = st.waiting.erase(i);
    } else {
      if (!next || i->second.deadline < *next)
        next = i->second.deadline;
      ++i;
    }
  }
  if (next)
    arm(self, *next);
  for (auto& [id, w] : expired) {
    ++st.timed_out;
    w.rp.deliver(make_error(errc::request_timeout, "no reply to request " + id
                                                     + " within its timeout"));
  }
}

} // namespace

nlohmann::json request_holder_state::dump_fields() const {
  auto next = nlohmann::json{};
  if (clock && !waiting.empty()) {
    auto first = waiting.begin()->second.deadline;
    for (auto& [id, w] : waiting)
      first = std::min(first, w.deadline);
    next = to_ms(first - clock->now());
  }
  return {
    {"waiting", waiting.size()}, {"next_deadline_in_ms", next},
    {"requests", requests},      {"replied", replied},
    {"timed_out", timed_out},    {"failed", failed},
    {"dropped", dropped},
  };
}

request_holder_actor::behavior_type request_holder(
  request_holder_actor::stateful_pointer<request_holder_state> self) {
  self->state.clock = &self->clock();
  return {
    [=](request_atom, const std::string& id,
        caf::timespan timeout) -> caf::result<received_message> {
      auto& st = self->state;
      if (id.empty() || st.waiting.count(id) > 0)
        return make_error(errc::invalid_parameter,
                          "correlation id '" + id
                            + "' is empty or waits already");
      ++st.requests;
      auto deadline = self->clock().now() + timeout;
      auto rp = self->make_response_promise<received_message>();
      st.waiting.emplace(id, waiting_request{deadline, rp});
      arm(self, deadline);
      return rp;
    },
    [=](caf::delete_atom, const std::string& id, caf::error& err) {
      auto& st = self->state;
      auto i = st.waiting.find(id);
      if (i == st.waiting.end())
        return;
      auto rp = std::move(i->second.rp);
      st.waiting.erase(i);
      ++st.failed;
      rp.deliver(std::move(err));
    },
    [=](const push_reply_message& push) {
      auto& st = self->state;
      auto id
        = std::string{find_property(push.properties, property_correlation_id)};
      auto i = st.waiting.find(id);
      if (i == st.waiting.end()) {
        ++st.dropped;
        RMQ_WARN(component, "dropped the reply to request '"
                              << id << "' from " << push.born_host
                              << ": it came after its timeout or for no "
                                 "request of this client");
        return;
      }
      auto rp = std::move(i->second.rp);
      st.waiting.erase(i);
      auto msg = to_received_message(push);
      if (!msg) {
        ++st.failed;
        rp.deliver(std::move(msg.error()));
        return;
      }
      ++st.replied;
      rp.deliver(std::move(*msg));
    },
    [=](caf::tick_atom) { expire(self); },
    dump_handler(self),
  };
}

} // namespace rmq
