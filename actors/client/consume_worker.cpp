#include "actors/client/consume_worker.hpp"

#include <exception>
#include <utility>

#include <nlohmann/json.hpp>

#include "runtime/log.hpp"

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
  return {{"batches", batches},
          {"messages", messages},
          {"retries", retries},
          {"thrown", thrown},
          {"last_error", last_error}};
}

consume_worker_actor::behavior_type consume_worker(
  consume_worker_actor::stateful_pointer<consume_worker_state> self,
  batch_listener listener) {
  self->state.listener = std::move(listener);
  return {
    [self](consume_atom, std::vector<received_message>& batch) {
      auto& st = self->state;
      ++st.batches;
      st.messages += static_cast<int64_t>(batch.size());
      consume_result res;
      // The listener is the user's code: anything it throws is a retry
      // (RocketMQ counts an exception as RECONSUME_LATER / SUSPEND).
      try {
        res.status = st.listener ? st.listener(batch) : retry_status;
      } catch (const std::exception& e) {
        res.status = retry_status;
        res.error = e.what();
      } catch (...) {
        res.status = retry_status;
        res.error = "unknown exception";
      }
      if (!res.error.empty()) {
        ++st.thrown;
        st.last_error = res.error;
        RMQ_WARN(component, "listener threw: " << res.error);
      }
      // A retry needs the messages (sent back, or consumed again); a
      // consumed batch is freed here, off the consumer's thread.
      if (res.status == retry_status) {
        ++st.retries;
        res.batch = std::move(batch);
      }
      return res;
    },
    dump_handler(self),
  };
}

} // namespace rmq
