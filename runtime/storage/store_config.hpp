// Settings of one message store (RocketMQ MessageStoreConfig), with
// RocketMQ's defaults except a tenth of its index geometry; tests shrink the
// sizes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "runtime/common/wall_clock.hpp"
#include "runtime/message/delay_levels.hpp"

namespace rmq::storage {

enum class flush_mode { async, sync };

/// Failures a test can inject into file operations (LevelDB's ForceError):
/// each counter makes that many next calls fail.
struct fault_injection {
  std::atomic<int> fail_sync{0};
  std::atomic<int> fail_allocate{0};
};

struct store_config {
  /// Root folder: commitlog/, consumequeue/, index/, checkpoint, abort.
  std::string dir;

  /// Size of a commit-log segment file (RocketMQ: 1 GiB).
  size_t segment_size = size_t{1} << 30;

  /// Units per consume-queue file (RocketMQ: 300 000 x 20 B).
  size_t cq_units_per_file = 300'000;

  /// Index file geometry (RocketMQ: 5 000 000 slots, 20 000 000 entries).
  uint32_t index_slots = 500'000;
  uint32_t index_entries = 2'000'000;

  flush_mode flush = flush_mode::async;

  /// Async flush: period, and the dirty bytes that make a period flush.
  std::chrono::milliseconds flush_interval{500};
  size_t flush_least_bytes = 16 * 1024;
  /// Async flush: flush everything this often even if little is dirty.
  std::chrono::milliseconds flush_thorough_interval{10'000};
  /// Async flush: flush at once when this much is dirty.
  size_t flush_eager_bytes = 64 * 1024 * 1024;
  /// Sync flush: a batch not on disk after this long is answered with
  /// flush_disk_timeout per message (stored, not yet durable; RocketMQ
  /// syncFlushTimeout). Checked on the flush timer, so the answer may come
  /// up to `flush_interval` later.
  std::chrono::milliseconds sync_flush_timeout{5'000};

  /// A slave's store takes its master's log only (`append_replica`): puts
  /// are refused, as RocketMQ's "message store is in slave mode", so that
  /// nothing on the broker (a delay level, a timer, a transaction check)
  /// writes a record its master does not have. `set_slave` changes it.
  bool slave = false;

  /// SYNC_MASTER (docs/replication.md, "Acknowledgements"): a batch is
  /// answered once a slave has it too, FLUSH_SLAVE_TIMEOUT past
  /// `sync_flush_timeout`, SLAVE_NOT_AVAILABLE at once when no slave is
  /// in sync. The commit-log writer applies it; the store only keeps it.
  bool sync_replication = false;
  /// A slave further behind than this is not in sync (RocketMQ
  /// haMaxGapNotInSync).
  int64_t ha_max_gap_not_in_sync = 256 * 1024 * 1024;
  /// A slave not heard from for this long is not in sync (RocketMQ's
  /// haHousekeepingInterval).
  std::chrono::milliseconds ha_housekeeping_interval{20'000};

  /// Largest body (RocketMQ maxMessageSize).
  size_t max_message_size = 4 * 1024 * 1024;
  /// Largest properties field (RocketMQ: 32 767, the int16 length).
  size_t max_properties_size = 32767;

  /// Dedup window for messages carrying a unique id; zero turns it off.
  std::chrono::milliseconds dedup_window{std::chrono::minutes{5}};
  /// Most ids the dedup table holds; past it the oldest are forgotten
  /// first. Keeps its memory (48–80 B an id) bounded at any send rate: a
  /// full window at 300,000 msgs/s would be 90 M ids. Producer retries
  /// come within seconds, well inside 1 M ids at any rate seen here.
  size_t dedup_max_entries = 1'000'000;

  /// Under sync flush, bytes of the current segment kept zero-written and
  /// synced ahead of the writer by the warm actor; zero turns it off. A
  /// segment is preallocated with posix_fallocate (unwritten extents), and
  /// the first write to each block then makes the writer's fdatasync also
  /// commit the journal (RocketMQ's warmMappedFile writes zeros for the
  /// same reason; docs/storage.md, "Warming").
  size_t warm_ahead_bytes = 64 * 1024 * 1024;
  /// Zeros written per step under the warm lock (the writer waits at most
  /// one step when it catches up with the warm actor).
  size_t warm_chunk_bytes = 4 * 1024 * 1024;
  /// Under async flush, bytes of the current segment zero-written (not
  /// synced) and mapped in ahead of the writer by the warm actor; zero
  /// turns it off. Without it the writer's first touch of each page of a
  /// preallocated segment faults through ext4's unwritten extents, about
  /// 10 µs a page here against 1.2 µs for the warm actor's pwrite and
  /// populate: a fifth of the broker's CPU in the batch path
  /// (docs/storage.md, "Warming"). Small, because the async flush also
  /// writes the zeros ahead of the writer back to disk.
  size_t populate_ahead_bytes = 4 * 1024 * 1024;

  /// A checkpoint with more dirty consume queues than this syncs the
  /// store's file system once (syncfs) instead of each queue's files.
  size_t cq_syncfs_threshold = 64;

  /// Reads of records within this many bytes of the log's end count as
  /// served from memory (`message_store::get_messages`); 0: this percent
  /// of the machine's memory (RocketMQ accessMessageInMemoryMaxRatio).
  size_t in_memory_bytes = 0;
  int32_t in_memory_max_ratio = 40;

  /// Segments older than this are deleted (RocketMQ fileReservedTime).
  std::chrono::milliseconds retention{std::chrono::hours{72}};
  /// Above this disk use, old segments are deleted even if not expired
  /// (RocketMQ diskSpaceCleanForciblyRatio), unless `clean_forcibly` is
  /// off (RocketMQ cleanFileForciblyEnable): then nothing goes before its
  /// retention and writes are refused at `disk_full_ratio`.
  double disk_clean_ratio = 0.85;
  bool clean_forcibly = true;
  /// Above this disk use, writes are refused (disk_full).
  double disk_full_ratio = 0.90;

  /// Verify body CRCs during recovery (RocketMQ checkCRCOnRecover).
  bool check_crc_on_recover = true;

  /// Back-pressure: bytes appended but not yet flushed or not yet
  /// dispatched above `high` refuse new sends (system_busy) until they fall
  /// below `low`.
  size_t pending_high_watermark = 512 * 1024 * 1024;
  size_t pending_low_watermark = 256 * 1024 * 1024;

  /// Store host written into every record (IPv4, host byte order).
  uint32_t store_ip = 0x7F000001;
  uint32_t store_port = 10921;

  /// Delay of each level (RocketMQ messageDelayLevel, parsed by
  /// runtime/message/delay_levels.hpp): the consume-queue tags code of a
  /// SCHEDULE_TOPIC_XXXX record is its store time plus its level's delay.
  std::string message_delay_level = default_message_delay_level;

  /// For store timestamps, dedup and retention (the commit-log actor's).
  /// Tests derive one from the virtual clock, so that delay levels come
  /// due in virtual time.
  rmq::wall_clock wall_clock;

  std::shared_ptr<fault_injection> faults;
};

/// Whether a slave that acknowledged `acked` and was last heard from
/// `quiet` ago is in sync with a master whose log ends at `end`: heard
/// within haHousekeepingInterval and at most haMaxGapNotInSync behind
/// (SYNC_MASTER's writer, the HA service's dump; docs/replication.md,
/// "Acknowledgements").
inline bool slave_in_sync(const store_config& cfg, int64_t end, int64_t acked,
                          std::chrono::nanoseconds quiet) {
  return acked >= 0 && quiet >= std::chrono::nanoseconds{0}
         && quiet < cfg.ha_housekeeping_interval
         && end - acked <= cfg.ha_max_gap_not_in_sync;
}

} // namespace rmq::storage
