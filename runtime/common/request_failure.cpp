#include "runtime/common/request_failure.hpp"

#include "caf/atom.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

namespace rmq {

bool is_system_failure(const caf::error& err) {
  return err && err.category() == caf::atom("system");
}

void log_request_failure(const char* component, const std::string& what,
                         const caf::error& err) {
  if (is_system_failure(err))
    RMQ_ERROR(component, what << " failed: " << describe(err));
  else if (err == errc::corrupt_data || err == errc::io_error
           || err == errc::disk_full || err == errc::system_error)
    // Damage or a node in trouble: an operator must hear of it.
    RMQ_WARN(component, what << " failed: " << describe(err));
  else
    RMQ_DEBUG(component, what << " failed: " << describe(err));
}

} // namespace rmq
