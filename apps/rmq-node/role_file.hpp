// The role a broker was promoted or demoted to (docs/replication.md,
// "Failover"), kept in `<store>/config/brokerRole.json` so that a later
// restart with the old flags comes back in the role the group needs: the
// file wins over --broker-id and --broker-role, with a warning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "caf/error.hpp"
#include "caf/expected.hpp"

namespace rmq::node {

struct role_override {
  int64_t broker_id = 0;
  std::string role;
  /// A promotion not started yet: the next start as master begins a new
  /// term, then the mark goes (a kill in between cannot lose the term).
  bool new_term = false;
};

std::string role_file_path(const std::string& store_dir);

/// The kept role, if any; an unreadable file is an error (a guess could
/// start a second master).
caf::expected<std::optional<role_override>>
load_role_override(const std::string& store_dir);

/// Keeps `x` (written atomically).
caf::error save_role_override(const std::string& store_dir,
                              const role_override& x);

} // namespace rmq::node
