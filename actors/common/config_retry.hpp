// After a failed save of its config file (runtime/common/config_file.hpp), a
// table actor sends itself `save_atom` every config_save_retry until a
// save lands: the change stays served from memory meanwhile. The actor's
// state has `file` (a config_file), `retry_armed` and `save_again()`.
#pragma once

#include "messages/common/common.hpp"
#include "runtime/common/config_file.hpp"

namespace rmq {

/// Arms the retry when the file is dirty and none is on its way; call it
/// after every change (and at start, for a save the start made).
template <class Self>
void arm_config_retry(Self* self) {
  auto& st = self->state;
  if (st.file.dirty() && !st.retry_armed) {
    st.retry_armed = true;
    self->delayed_send(self, config_save_retry, save_atom::value);
  }
}

/// The `save_atom` handler: saves again, re-arming while it still fails.
template <class Self>
void on_config_retry(Self* self) {
  self->state.retry_armed = false;
  self->state.save_again();
  arm_config_retry(self);
}

} // namespace rmq
