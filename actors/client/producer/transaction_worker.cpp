#include "actors/client/producer/transaction_worker.hpp"

#include <exception>
#include <utility>

#include <nlohmann/json.hpp>

#include "runtime/common/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* transaction_worker_state::name = "transaction_worker";

namespace {

constexpr const char* component = "transaction_worker";

/// Runs `f` (the user's code): a state it returns, or unknown with the
/// text of what it threw (RocketMQ catches Throwable and keeps UNKNOW).
template <class F>
local_transaction_result guarded(transaction_worker_state& st, F f) {
  local_transaction_result res;
  try {
    res.state = static_cast<uint8_t>(f());
  } catch (const std::exception& e) {
    res.error = e.what();
  } catch (...) {
    res.error = "unknown exception";
  }
  if (!res.error.empty()) {
    res.state = static_cast<uint8_t>(transaction_state::unknown);
    ++st.thrown;
    st.last_error = res.error;
    RMQ_WARN(component, "transaction listener threw: " << res.error);
  }
  if (res.state > static_cast<uint8_t>(transaction_state::unknown))
    res.state = static_cast<uint8_t>(transaction_state::unknown);
  return res;
}

} // namespace

nlohmann::json transaction_worker_state::dump_fields() const {
  return {{"executed", executed},
          {"checked", checked},
          {"thrown", thrown},
          {"last_error", last_error}};
}

transaction_worker_actor::behavior_type transaction_worker(
  transaction_worker_actor::stateful_pointer<transaction_worker_state> self,
  std::shared_ptr<transaction_listener> listener) {
  self->state.listener = std::move(listener);
  return {
    [self](execute_atom, const client_message& msg, const std::string& arg) {
      auto& st = self->state;
      ++st.executed;
      return guarded(st, [&] {
        return st.listener->execute_local_transaction(msg, arg);
      });
    },
    [self](check_atom, const received_message& msg) {
      auto& st = self->state;
      ++st.checked;
      return guarded(st,
                     [&] { return st.listener->check_local_transaction(msg); });
    },
    dump_handler(self),
  };
}

} // namespace rmq
