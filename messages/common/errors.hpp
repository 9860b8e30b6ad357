// Error codes shared by every actor of the queue. They travel inside a
// caf::error (code + category atom "rmq" + optional detail text), so a client
// sees the same code whether the peer is local or remote.
#pragma once

#include <cstdint>
#include <string>

#include "caf/atom.hpp"
#include "caf/error.hpp"
#include "caf/fwd.hpp"

namespace rmq {

/// Category atom of all rmq errors (CAF 0.17 atoms: at most 10 characters).
constexpr caf::atom_value errc_category = caf::atom("rmq");

/// Failure reasons. Where RocketMQ has a ResponseCode for the same failure the
/// number is RocketMQ's, so a RocketMQ-compatible front door maps 1:1.
enum class errc : uint8_t {
  // 0 means "no error" inside caf::error.
  system_error = 1,
  system_busy = 2,
  request_code_not_supported = 3,
  flush_disk_timeout = 10,
  slave_not_available = 11,
  flush_slave_timeout = 12,
  message_illegal = 13,
  service_not_available = 14,
  no_permission = 16,
  topic_not_exist = 17,
  subscription_group_not_exist = 26,
  pull_not_found = 19,
  pull_retry_immediately = 20,
  pull_offset_moved = 21,
  query_not_found = 22,
  subscription_parse_failed = 23,
  invalid_parameter = 29,
  // Our own codes start at 100.
  broker_not_found = 100,
  io_error = 101,
  corrupt_data = 102,
  not_ready = 103,
  queue_full = 104,
  properties_size_exceeded = 105,
  disk_full = 106,
  /// No reply to a request within its timeout (RocketMQ
  /// RequestTimeoutException, client code 10006: too big for our byte).
  request_timeout = 110,
};

/// Returns the enumerator name, e.g. "topic_not_exist".
std::string to_string(errc x);

/// Wraps `x` into a caf::error. Found by ADL, so handlers can return an errc
/// wherever CAF expects an error or a caf::result<T>.
caf::error make_error(errc x);

/// Like `make_error(x)`, with a human-readable detail.
caf::error make_error(errc x, std::string detail);

/// Returns the detail text of an rmq error, or an empty string.
std::string error_detail(const caf::error& err);

/// Renders errors of category "rmq" for `actor_system::render`.
std::string render_error(uint8_t code, caf::atom_value category,
                         const caf::message& context);

/// Renders any error without an actor system: "rmq::topic_not_exist: T",
/// or CAF's own rendering for system errors.
std::string describe(const caf::error& err);

} // namespace rmq
