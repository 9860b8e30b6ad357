// The one way an actor answers a dump request: its state renders its own
// fields (`nlohmann::json dump_fields() const`, reusing each message's
// to_json), and render_dump puts the actor's name first under "actor", so
// every dump has the same shape and the same key for the same thing.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "caf/actor_clock.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/common/common.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/rate_meter.hpp"
#include "runtime/common/request_failure.hpp"

namespace rmq {

/// Returns `{"actor": name, ...fields}` as text; `name` wins over a field
/// called "actor", so a dump always says which actor it came from.
inline std::string render_dump(const char* name, nlohmann::json fields) {
  if (!fields.is_object())
    fields = nlohmann::json{{"value", std::move(fields)}};
  fields["actor"] = name;
  return fields.dump();
}

/// A rate as dumps show it: per second over the last 10 s, 1 min and
/// 10 min (RocketMQ's putTps triple), at the clock's now.
inline nlohmann::json rates(const rate_meter& m,
                            const caf::actor_clock* clock) {
  if (clock == nullptr)
    return nlohmann::json::array();
  auto now = clock->now().time_since_epoch();
  return {m.rate(now, 10), m.rate(now, 60), m.rate(now, 599)};
}

/// The dump handler of a stateful actor whose state has a static `name` and
/// `dump_fields()`.
template <class Self>
auto dump_handler(Self* self) {
  return [self](dump_atom) {
    using state_type = std::decay_t<decltype(self->state)>;
    return render_dump(state_type::name, self->state.dump_fields());
  };
}

/// Asks every actor in `parts` for its dump and delivers
/// `{"node": node, "actors": [head, ...dumps]}` to `rp`. A part that fails
/// or does not answer within `timeout` shows up as `{"error": ...}`, so one
/// stuck actor cannot hide the others.
template <class Self>
void collect_dumps_into(Self* self, caf::typed_response_promise<std::string> rp,
                        std::string node, nlohmann::json head,
                        const std::vector<dumpable_actor>& parts,
                        std::chrono::milliseconds timeout) {
  struct accumulator {
    nlohmann::json actors = nlohmann::json::array();
    size_t pending = 0;
  };
  auto acc = std::make_shared<accumulator>();
  acc->actors.push_back(std::move(head));
  acc->pending = parts.size() + 1;
  auto done = [acc, rp, node]() mutable {
    if (--acc->pending == 0)
      rp.deliver(
        nlohmann::json{{"node", node}, {"actors", acc->actors}}.dump());
  };
  for (auto& part : parts) {
    if (!part) {
      done();
      continue;
    }
    self->request(part, timeout, dump_atom::value)
      .then(
        [acc, done](const std::string& text) mutable {
          acc->actors.push_back(nlohmann::json::parse(text, nullptr, false));
          done();
        },
        [acc, done](const caf::error& err) mutable {
          log_request_failure("dump", "dump of an actor", err);
          acc->actors.push_back({{"error", describe(err)}});
          done();
        });
  }
  done();
}

/// collect_dumps_into, answering the current request.
template <class Self>
caf::typed_response_promise<std::string>
collect_dumps(Self* self, std::string node, nlohmann::json head,
              const std::vector<dumpable_actor>& parts,
              std::chrono::milliseconds timeout) {
  auto rp = self->template make_response_promise<std::string>();
  collect_dumps_into(self, rp, std::move(node), std::move(head), parts,
                     timeout);
  return rp;
}

} // namespace rmq
