// The checkpoint file (RocketMQ StoreCheckpoint): how far the consume queues
// and the index are durable, so recovery after a crash re-dispatches only
// the commit log beyond it.
#pragma once

#include <cstdint>
#include <string>

#include "caf/error.hpp"

namespace rmq::storage {

struct checkpoint {
  // RocketMQ's five fields, in its order.
  int64_t physic_msg_timestamp = 0;
  int64_t logics_msg_timestamp = 0;
  int64_t index_msg_timestamp = 0;
  int64_t master_flushed_offset = 0;
  int64_t confirm_phy_offset = 0;
  /// Ours: commit-log offset up to which consume queues and index are
  /// durable. Recovery re-dispatches from here.
  int64_t dispatched_offset = 0;

  /// Set by `load` (not stored): the file was there but short or failed its
  /// CRC.
  bool damaged = false;

  /// Reads `path`; a missing or damaged file (CRC mismatch) yields zeros,
  /// which makes recovery scan the whole log.
  static checkpoint load(const std::string& path);

  /// Writes and fdatasyncs `path` (one 4 KiB page with a CRC).
  caf::error save(const std::string& path) const;
};

} // namespace rmq::storage
