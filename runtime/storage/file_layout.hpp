// The layout of the store's derived files (RocketMQ ConsumeQueue, IndexFile)
// and of its file names. The byte-by-byte grammar is in
// docs/storage-format.md; keep both in step.
#pragma once

#include <cstddef>

namespace rmq::storage {

// -- consume queue ----------------------------------------------------------------

/// `int64 commit-log offset | int32 size | int64 tags code`.
constexpr size_t cq_unit_size = 20;

// -- index file -------------------------------------------------------------------

constexpr size_t index_header_size = 40;
constexpr size_t index_slot_size = 4;
/// `int32 key hash | int64 phys offset | int32 time diff s | int32 prev`.
constexpr size_t index_entry_size = 20;

/// Width of segment file names: the 20-digit zero-padded start offset.
constexpr int file_name_width = 20;

} // namespace rmq::storage
