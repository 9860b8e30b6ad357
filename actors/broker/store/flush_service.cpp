#include "actors/broker/store/flush_service.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* flush_state::name = "flush_service";

flush_service_actor::behavior_type
flush_service(flush_service_actor::stateful_pointer<flush_state> self,
              std::shared_ptr<storage::message_store> store) {
  self->state.store = std::move(store);
  return {
    [=](flush_atom, int64_t up_to) -> caf::result<int64_t> {
      auto& st = self->state;
      auto before = st.store->flushed_offset();
      // Wall time of the sync itself: a statistic, not a decision.
      auto t0 = std::chrono::steady_clock::now();
      auto res = st.store->flush(up_to);
      auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::steady_clock::now() - t0)
                  .count();
      if (!res) {
        ++st.failures;
        st.last_error = describe(res.error());
        return std::move(res.error());
      }
      if (*res > before) {
        ++st.syncs;
        st.last_sync_us = us;
        st.max_sync_us = std::max(st.max_sync_us, us);
        st.total_sync_us += us;
        st.flushed_bytes += *res - before;
      }
      return *res;
    },
    dump_handler(self),
  };
}

nlohmann::json flush_state::dump_fields() const {
  return {
    {"flushed_offset", store->flushed_offset()},
    {"write_offset", store->write_offset()},
    {"syncs", syncs},
    {"failures", failures},
    {"last_sync_us", last_sync_us},
    {"max_sync_us", max_sync_us},
    {"avg_sync_us", syncs > 0 ? total_sync_us / syncs : 0},
    {"flushed_bytes", flushed_bytes},
    {"last_error", last_error},
  };
}

} // namespace rmq
