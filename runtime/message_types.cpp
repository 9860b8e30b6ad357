#include "runtime/message_types.hpp"

namespace rmq {

void register_message_types(caf::actor_system_config& cfg) {
  // -- namesrv ----------------------------------------------------------------
  // -- broker / store ---------------------------------------------------------
  static_cast<void>(cfg);
}

} // namespace rmq
