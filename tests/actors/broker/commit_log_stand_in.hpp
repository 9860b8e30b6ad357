// A stand-in for the commit-log writer whose puts a test decides; the
// rest of the writer's interface (replication, subscriptions, ticks)
// does nothing or refuses. One shared stand-in instead of one per test.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "caf/result.hpp"

#include "messages/common/errors.hpp"
#include "messages/store/store_actors.hpp"

namespace rmq::test {

/// What the stand-in answers a put with (it may delegate through `self`).
using stand_in_put = std::function<caf::result<std::vector<put_result>>(
  commit_log_writer_actor::pointer self, std::vector<store_message>& batch)>;

inline commit_log_writer_actor::behavior_type
commit_log_stand_in(commit_log_writer_actor::pointer self, stand_in_put put) {
  return {
    [self, put](caf::put_atom, std::vector<store_message>& batch) {
      return put(self, batch);
    },
    [](replica_atom, const replica_chunk&) -> caf::result<int64_t> {
      return make_error(errc::invalid_parameter, "a stand-in has no replica");
    },
    [](reconcile_atom, const replica_chunk&) -> caf::result<int64_t> {
      return make_error(errc::invalid_parameter, "a stand-in has no replica");
    },
    [](caf::subscribe_atom, const ha_service_actor&) {
      // nop
    },
    [](replicated_atom, int64_t) {
      // nop
    },
    [](tick_atom) {
      // nop
    },
    [](dump_atom) { return std::string{"{}"}; },
  };
}

} // namespace rmq::test
