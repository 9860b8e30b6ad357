// The epoch file's entries as they travel between a master and its slaves
// (messages/broker/replication.hpp, replica_term) and back.
#pragma once

#include <vector>

#include "messages/broker/replication.hpp"
#include "runtime/storage/epoch_file.hpp"

namespace rmq::storage {

inline std::vector<replica_term> to_terms(const std::vector<epoch_entry>& xs) {
  std::vector<replica_term> out;
  out.reserve(xs.size());
  for (auto& x : xs)
    out.push_back({x.epoch, x.start_offset});
  return out;
}

inline std::vector<epoch_entry> to_epochs(const std::vector<replica_term>& xs) {
  std::vector<epoch_entry> out;
  out.reserve(xs.size());
  for (auto& x : xs)
    out.push_back({x.epoch, x.start_offset});
  return out;
}

} // namespace rmq::storage
