// The responses a node gives when it cannot serve a request: our errors
// as RocketMQ response codes and remarks (docs/remoting.md, "Errors").
#pragma once

#include <string>

#include "caf/error.hpp"

#include "runtime/remoting/remoting_command.hpp"

namespace rmq::remoting {

/// `err` as a response to `request`: an rmq error below 100 keeps its
/// code (errc mirrors RocketMQ's ResponseCode), our own codes and CAF's
/// (a timeout, a lost actor) are SYSTEM_ERROR; the remark is the error's
/// detail, or its name when it has none.
remoting_command error_response(const remoting_command& request,
                                const caf::error& err);

/// REQUEST_CODE_NOT_SUPPORTED with RocketMQ's remark.
remoting_command not_supported(const remoting_command& request);

/// SYSTEM_ERROR for a missing required header field, with the remark
/// RocketMQ's header decoder gives.
remoting_command missing_field(const remoting_command& request,
                               const std::string& field);

} // namespace rmq::remoting
