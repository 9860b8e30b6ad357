#include "actors/client/consumer/consume_worker.hpp"

#include <algorithm>
#include <exception>
#include <iterator>
#include <utility>

#include <nlohmann/json.hpp>

#include "runtime/common/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* consume_worker_state::name = "consume_worker";

namespace {

constexpr const char* component = "consume_worker";

/// The retry answer of both listener kinds (reconsume_later and
/// suspend_current_queue_a_moment are both 1).
constexpr uint8_t retry_status = 1;
static_assert(static_cast<uint8_t>(consume_status::reconsume_later)
              == retry_status);
static_assert(
  static_cast<uint8_t>(orderly_status::suspend_current_queue_a_moment)
  == retry_status);

} // namespace

nlohmann::json consume_worker_state::dump_fields() const {
  return {{"slice", slice},       {"batches", batches},
          {"messages", messages}, {"retries", retries},
          {"thrown", thrown},     {"last_error", last_error}};
}

namespace {

/// Runs the listener on one slice; the retry status when it threw.
uint8_t run_listener(consume_worker_state& st,
                     const std::vector<received_message>& slice,
                     std::string& error) {
  // The listener is the user's code: anything it throws is a retry
  // (RocketMQ counts an exception as RECONSUME_LATER / SUSPEND).
  try {
    return st.listener ? st.listener(slice) : retry_status;
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception";
  }
  ++st.thrown;
  st.last_error = error;
  RMQ_WARN(component, "listener threw: " << error);
  return retry_status;
}

} // namespace

consume_worker_actor::behavior_type consume_worker(
  consume_worker_actor::stateful_pointer<consume_worker_state> self,
  batch_listener listener, size_t slice) {
  self->state.listener = std::move(listener);
  self->state.slice = std::max<size_t>(1, slice);
  return {
    [self](consume_atom, std::vector<received_message>& job) {
      auto& st = self->state;
      st.messages += static_cast<int64_t>(job.size());
      consume_result res;
      auto one = [&](std::vector<received_message>& slice) {
        ++st.batches;
        ++res.calls;
        if (run_listener(st, slice, res.error) != retry_status)
          return; // consumed: freed here, off the consumer's thread
        ++st.retries;
        ++res.retried_calls;
        res.status = retry_status;
        // A retry needs the messages (sent back, or consumed again).
        res.batch.insert(res.batch.end(),
                         std::make_move_iterator(slice.begin()),
                         std::make_move_iterator(slice.end()));
      };
      if (job.size() <= st.slice) {
        one(job);
        return res;
      }
      // A job of several slices (one hand-off for them all): the listener
      // sees each slice as its own batch, in order.
      std::vector<received_message> slice;
      for (size_t i = 0; i < job.size(); i += st.slice) {
        auto end = std::min(job.size(), i + st.slice);
        slice.assign(
          std::make_move_iterator(job.begin() + static_cast<ptrdiff_t>(i)),
          std::make_move_iterator(job.begin() + static_cast<ptrdiff_t>(end)));
        one(slice);
      }
      return res;
    },
    dump_handler(self),
  };
}

} // namespace rmq
