// Atoms and interfaces every rmq actor shares.
#pragma once

#include <string>

#include "caf/atom.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

namespace rmq {

/// Asks any rmq actor for a JSON snapshot of its state (as text).
using dump_atom = caf::atom_constant<caf::atom("dump")>;

/// Writes a table's file now (the NameServer's KV table), or again after a
/// failed save (the broker's config tables, to themselves).
using save_atom = caf::atom_constant<caf::atom("save")>;

/// `(sync_atom, state)`: a slave's table takes its master's state
/// (docs/replication.md, "Metadata").
using sync_atom = caf::atom_constant<caf::atom("sync")>;

/// Periodic self-message of timer actors.
using tick_atom = caf::tick_atom;

/// Every rmq actor answers a dump request; interfaces `extend` this one.
using dumpable_actor
  = caf::typed_actor<caf::replies_to<dump_atom>::with<std::string>>;

} // namespace rmq
