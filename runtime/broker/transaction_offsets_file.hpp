// The transaction check service's progress file,
// `<store>/config/transactionOffset.json`: where a restart reads the half
// and op queues again from. RocketMQ keeps the same two numbers as consumer
// offsets of the group CID_SYS_RMQ_TRANS; the file has that shape
// (`{"offsetTable": {"RMQ_SYS_TRANS_HALF_TOPIC@CID_SYS_RMQ_TRANS": {"0": N},
// ...}}`).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "caf/error.hpp"

namespace rmq {

struct transaction_offsets {
  int64_t half = 0;
  int64_t op = 0;
};

/// The file's path under a store root.
std::string transaction_offsets_json_path(const std::string& store_root);

/// The document to save.
nlohmann::json to_json_document(const transaction_offsets& offsets);

/// Reads a loaded document (null: no file yet, all zero); corrupt_data if
/// it is not an object. Missing or invalid numbers read as 0.
caf::error from_json_document(const nlohmann::json& doc,
                              transaction_offsets& out);

} // namespace rmq
