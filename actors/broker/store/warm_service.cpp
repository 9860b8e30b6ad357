#include "actors/broker/store/warm_service.hpp"

#include <nlohmann/json.hpp>

#include "runtime/common/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* warm_state::name = "warm_service";

warm_service_actor::behavior_type
warm_service(warm_service_actor::stateful_pointer<warm_state> self,
             std::shared_ptr<storage::message_store> store) {
  self->state.store = std::move(store);
  return {
    [=](tick_atom) {
      auto& st = self->state;
      ++st.requests;
      for (;;) {
        auto res = st.store->warm();
        if (!res) {
          // Only speed is lost: the writer's appends go on, slower to sync.
          // The flush sees any write-back error on its own descriptor. The
          // claim stays taken, so the writer asks no more.
          ++st.failures;
          st.last_error = describe(res.error());
          RMQ_WARN("store", "warming the commit log failed, warming stops: "
                              << st.last_error);
          return;
        }
        if (!*res)
          break;
        ++st.steps;
      }
      st.store->log().release_warm();
    },
    dump_handler(self),
  };
}

nlohmann::json warm_state::dump_fields() const {
  return {
    {"warm_end", store->log().warm_end()},
    {"write_offset", store->write_offset()},
    {"requests", requests},
    {"steps", steps},
    {"failures", failures},
    {"last_error", last_error},
  };
}

} // namespace rmq
