// Interface of a table's file writer (actors/common/json_file_writer.hpp).
#pragma once

#include <string>

#include "caf/atom.hpp"
#include "caf/replies_to.hpp"

#include "messages/common/common.hpp"

namespace rmq {

using json_file_writer_actor = dumpable_actor::extend<
  // Writes this rendered JSON document to the writer's file, atomically
  // and durably (runtime/common/json_file.hpp); answers when it is on disk, or
  // the io_error.
  caf::replies_to<caf::put_atom, std::string>::with<void>>;

} // namespace rmq
