#include "actors/broker/processor/pull_hold_service.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/request_failure.hpp"

#include "actors/broker/processor/pull_processor.hpp"
#include "actors/common/dump.hpp"

namespace rmq {

const char* pull_hold_state::name = "pull_hold_service";

namespace {

std::string key_of(const std::string& topic, int32_t queue_id) {
  return topic + "@" + std::to_string(queue_id);
}

using self_ptr = pull_hold_service_actor::stateful_pointer<pull_hold_state>;

int64_t now_ns(self_ptr self) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           self->clock().now().time_since_epoch())
    .count();
}

// Takes a pull out of the hold and runs it once more through its
// processor, without suspension and without committing its offset again:
// answered from `got` when the queue service already read for it (same
// thread), else from the processor's own read.
void wake(self_ptr self, const std::string& key, int64_t id,
          std::optional<get_message_result> got = std::nullopt) {
  auto& held = self->state.held;
  auto i = held.find(key);
  if (i == held.end())
    return;
  auto j = i->second.find(id);
  if (j == i->second.end())
    return;
  auto pull = std::move(j->second);
  i->second.erase(j);
  if (i->second.empty())
    held.erase(i);
  pull.req.sys_flag &= ~(pull_sys_flag::suspend | pull_sys_flag::commit_offset);
  auto rp = pull.rp;
  auto topic = pull.req.topic;
  auto answer = [rp](pull_message_result& res) mutable {
    rp.deliver(std::move(res));
  };
  auto failed = [rp, topic](caf::error& err) mutable {
    log_request_failure("pull-hold", "re-executed pull of " + topic, err);
    rp.deliver(std::move(err));
  };
  auto timeout = self->state.request_timeout;
  if (got)
    self->request(pull.processor, timeout, std::move(pull.req), std::move(*got))
      .then(answer, failed);
  else
    self->request(pull.processor, timeout, std::move(pull.req))
      .then(answer, failed);
}

void watch_queue(self_ptr self, const std::string& key);

// Looks for a parked pull's message from the offset its tags were checked
// up to; wakes the pull when one matches, else watches its queue again.
void check_tags(self_ptr self, const std::string& key, int64_t id) {
  auto& pull = self->state.held[key][id];
  pull.checking = true;
  get_message_request get;
  get.topic = pull.req.topic;
  get.queue_id = pull.req.queue_id;
  get.offset = std::max(pull.checked_offset, pull.req.queue_offset);
  get.max_count = 1;
  get.max_bytes = INT32_MAX;
  get.tag_codes = pull.read.tag_codes;
  auto still_held = [self, key, id]() -> held_pull* {
    auto i = self->state.held.find(key);
    if (i == self->state.held.end())
      return nullptr;
    auto j = i->second.find(id);
    return j == i->second.end() ? nullptr : &j->second;
  };
  self->request(self->state.queue_service, self->state.request_timeout, get)
    .then(
      [=](const get_message_result& got) {
        auto p = still_held();
        if (p == nullptr)
          return;
        p->checking = false;
        auto st = static_cast<get_status>(got.status);
        if (st == get_status::found) {
          ++self->state.woken_on_arrival;
          wake(self, key, id);
        } else if (st == get_status::no_matched_message) {
          p->checked_offset = got.next_begin_offset;
        }
        watch_queue(self, key);
      },
      [=](caf::error& err) {
        log_request_failure("pull-hold", "tags check of " + key, err);
        if (auto p = still_held())
          p->checking = false;
        watch_queue(self, key);
      });
}

// Asks the queue service to tell this service once the queue has a message
// at the lowest offset a parked pull (not being checked) still waits
// for, with that pull's read made then; a watch replaces the queue's
// previous one. Other pulls of the queue read for themselves.
void watch_queue(self_ptr self, const std::string& key) {
  auto i = self->state.held.find(key);
  if (i == self->state.held.end() || i->second.empty())
    return;
  auto lowest = std::numeric_limits<int64_t>::max();
  const held_pull* first = nullptr;
  int64_t first_id = -1;
  for (auto& [id, pull] : i->second) {
    auto from = std::max(pull.checked_offset, pull.req.queue_offset);
    if (!pull.checking && from < lowest) {
      lowest = from;
      first = &pull;
      first_id = id;
    }
  }
  if (first == nullptr)
    return; // every one is being checked: each watches again when done
  auto read = first->read;
  read.offset = lowest;
  self->send(self->state.queue_service, watch_atom::value,
             caf::actor_cast<queue_watcher_actor>(self), first_id,
             std::move(read));
}

// The queue has messages up to `max`: wakes (or checks the tags of) every
// parked pull that waits for one below it, and watches for the others.
void on_arrival(self_ptr self, const std::string& key, int64_t max) {
  auto i = self->state.held.find(key);
  if (i == self->state.held.end())
    return;
  std::vector<int64_t> ready;
  std::vector<int64_t> to_check;
  for (auto& [id, pull] : i->second) {
    if (pull.checking || pull.req.queue_offset >= max
        || pull.checked_offset >= max)
      continue;
    if (pull.read.tag_codes.empty())
      ready.push_back(id);
    else
      to_check.push_back(id);
  }
  for (auto id : to_check)
    check_tags(self, key, id);
  for (auto id : ready) {
    ++self->state.woken_on_arrival;
    wake(self, key, id);
  }
  watch_queue(self, key);
}

} // namespace

size_t pull_hold_state::held_count() const {
  size_t n = 0;
  for (auto& [key, pulls] : held)
    n += pulls.size();
  return n;
}

pull_hold_service_actor::behavior_type pull_hold_service(
  pull_hold_service_actor::stateful_pointer<pull_hold_state> self,
  queue_service_actor queue_service, caf::duration request_timeout) {
  self->state.queue_service = std::move(queue_service);
  self->state.request_timeout = request_timeout;
  return {
    [=](suspend_atom, pull_message_request& req, get_message_request& read,
        pull_processor_actor& processor) -> caf::result<pull_message_result> {
      auto& st = self->state;
      ++st.suspended;
      auto key = key_of(req.topic, req.queue_id);
      auto id = st.next_id++;
      auto timeout = std::chrono::milliseconds{
        std::max<int64_t>(0, req.suspend_timeout_ms)};
      held_pull pull;
      pull.deadline_ns
        = now_ns(self)
          + std::chrono::duration_cast<std::chrono::nanoseconds>(timeout)
              .count();
      pull.checked_offset = req.queue_offset;
      pull.req = std::move(req);
      pull.read = std::move(read);
      pull.processor = std::move(processor);
      pull.rp = self->make_response_promise<pull_message_result>();
      auto rp = pull.rp;
      auto deadline = pull.deadline_ns;
      st.held[key].emplace(id, std::move(pull));
      // A timer only when this pull's deadline comes before every armed
      // one; with one suspend timeout that is one timer in all.
      if (st.armed.arm(deadline))
        self->delayed_send(self, timeout, expire_atom::value, deadline);
      // The queue service answers at once if a message arrived between the
      // pull's read and now.
      watch_queue(self, key);
      return rp;
    },
    [=](arrival_atom, const std::string& topic, int32_t qid, int64_t max) {
      ++self->state.arrivals;
      on_arrival(self, key_of(topic, qid), max);
    },
    [=](arrival_atom, const std::string& topic, int32_t qid, int64_t max,
        int64_t id, get_message_result& got) {
      auto& st = self->state;
      ++st.arrivals;
      auto key = key_of(topic, qid);
      auto i = st.held.find(key);
      if (i != st.held.end()) {
        auto j = i->second.find(id);
        if (j != i->second.end() && !j->second.checking) {
          auto status = static_cast<get_status>(got.status);
          if (status == get_status::found) {
            ++st.woken_on_arrival;
            ++st.woken_with_read;
            wake(self, key, id, std::move(got));
          } else if (status == get_status::no_matched_message) {
            // Only other tags so far: wait past them.
            j->second.checked_offset = std::max(j->second.checked_offset,
                                                got.next_begin_offset);
          }
        }
      }
      // The queue's other pulls (and this one, if the read was not
      // conclusive) as for a plain note.
      on_arrival(self, key, max);
    },
    [=](expire_atom, int64_t) {
      auto& st = self->state;
      auto now = now_ns(self);
      st.armed.fired(now);
      std::vector<std::pair<std::string, int64_t>> due;
      auto next = std::numeric_limits<int64_t>::max();
      for (auto& [key, pulls] : st.held)
        for (auto& [id, pull] : pulls)
          if (pull.deadline_ns <= now)
            due.emplace_back(key, id);
          else
            next = std::min(next, pull.deadline_ns);
      for (auto& [key, id] : due) {
        ++st.expired;
        wake(self, key, id);
      }
      // The earliest pull left (those woken on arrival took their
      // deadlines with them).
      if (next != std::numeric_limits<int64_t>::max() && st.armed.arm(next))
        self->delayed_send(self, std::chrono::nanoseconds{next - now},
                           expire_atom::value, next);
    },
    dump_handler(self),
  };
}

nlohmann::json pull_hold_state::dump_fields() const {
  auto queues = nlohmann::json::object();
  for (auto& [key, pulls] : held)
    queues[key] = pulls.size();
  return {
    {"held", held_count()},
    {"queues", std::move(queues)},
    {"timers", armed.size()},
    {"suspended", suspended},
    {"woken_on_arrival", woken_on_arrival},
    {"woken_with_read", woken_with_read},
    {"expired", expired},
    {"arrivals", arrivals},
  };
}

} // namespace rmq
