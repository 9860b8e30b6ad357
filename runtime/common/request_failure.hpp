// How an actor reports a failed request to another actor of its node. A
// failure of CAF's own (timeout, receiver down) means the node is in
// trouble and is logged as an error; damage or a node in trouble
// (corrupt_data, io_error, disk_full, system_error) at WARN; any other rmq
// error (topic_not_exist, ...) is an answer for the client and only logged
// at debug level.
#pragma once

#include <string>

#include "caf/error.hpp"

namespace rmq {

/// Returns whether `err` comes from CAF (timeout, dead receiver, ...)
/// rather than from an rmq handler.
bool is_system_failure(const caf::error& err);

/// Logs that `what` failed with `err`, at a level that fits the error.
void log_request_failure(const char* component, const std::string& what,
                         const caf::error& err);

} // namespace rmq
