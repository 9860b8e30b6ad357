#include "actors/namesrv/unregistration_batcher.hpp"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* unregistration_batcher_state::name = "unregistration_batcher";

namespace {

using self_ptr = unregistration_batcher_actor::stateful_pointer<
  unregistration_batcher_state>;

// The flush goes through our own mailbox, so everything that arrived
// before it joins the batch.
void schedule_flush(self_ptr self) {
  auto& st = self->state;
  if (!st.flush_scheduled && !st.in_flight && !st.queue.empty()) {
    st.flush_scheduled = true;
    self->send(self, caf::flush_atom::value);
  }
}

void flush(self_ptr self) {
  auto& st = self->state;
  st.flush_scheduled = false;
  if (st.in_flight || st.queue.empty())
    return;
  std::vector<unregistration> batch{st.queue.begin(), st.queue.end()};
  st.queue.clear();
  st.in_flight = true;
  ++st.batches;
  st.last_batch_size = batch.size();
  st.largest_batch_size = std::max(st.largest_batch_size, batch.size());
  self->request(st.writer, std::chrono::seconds{30}, batch)
    .then(
      [=](const std::vector<unregister_broker_request>& applied) {
        self->state.in_flight = false;
        self->state.applied += applied.size();
        schedule_flush(self);
      },
      [=](const caf::error& err) {
        // Keep the batch: the next flush retries it.
        RMQ_ERROR("namesrv", "unregistration batch failed: " << describe(err));
        auto& st = self->state;
        st.in_flight = false;
        st.queue.insert(st.queue.begin(), batch.begin(), batch.end());
        schedule_flush(self);
      });
}

} // namespace

unregistration_batcher_actor::behavior_type unregistration_batcher(
  unregistration_batcher_actor::stateful_pointer<unregistration_batcher_state>
    self,
  route_writer_actor writer, size_t capacity) {
  self->state.writer = std::move(writer);
  self->state.capacity = capacity;
  return {
    [=](const unregistration& x) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      if (st.queue.size() >= st.capacity) {
        ++st.refused;
        return make_error(errc::queue_full, "unregistration queue is full ("
                                              + std::to_string(st.capacity)
                                              + " requests)");
      }
      st.queue.push_back(x);
      schedule_flush(self);
      return caf::ok_atom::value;
    },
    [=](const std::vector<unregistration>& xs) {
      auto& st = self->state;
      st.queue.insert(st.queue.end(), xs.begin(), xs.end());
      schedule_flush(self);
    },
    [=](caf::flush_atom) { flush(self); },
    dump_handler(self),
  };
}

nlohmann::json unregistration_batcher_state::dump_fields() const {
  auto rows = nlohmann::json::array();
  for (auto& x : queue)
    rows.push_back(
      {{"request", x.request}, {"reason", x.reason}, {"token", x.token}});
  return {{"capacity", capacity},
          {"queued", rows},
          {"batch_in_flight", in_flight},
          {"batches", batches},
          {"last_batch_size", last_batch_size},
          {"largest_batch_size", largest_batch_size},
          {"applied", applied},
          {"refused", refused}};
}

} // namespace rmq
