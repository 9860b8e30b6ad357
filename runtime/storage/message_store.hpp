// The message store facade (RocketMQ DefaultMessageStore): commit log,
// consume queues, index, checkpoint, dedup and limits behind one object.
//
// Threads: the three store actors share one instance, each calling only its
// own part. Writer part (commit-log actor): put, delete_expired,
// refresh_disk_usage. Flush part (flush actor): flush. Queue service part:
// dispatch, save_checkpoint, clean_consume_queues and every read. Each part
// takes its own uncontended mutex, so `close` can stop them all safely.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "caf/error.hpp"
#include "caf/expected.hpp"

#include "messages/broker/timer.hpp"
#include "messages/store/store.hpp"
#include "runtime/storage/checkpoint.hpp"
#include "runtime/storage/commit_log.hpp"
#include "runtime/storage/consume_queue.hpp"
#include "runtime/storage/dedup_table.hpp"
#include "runtime/storage/epoch_file.hpp"
#include "runtime/storage/index_service.hpp"
#include "runtime/storage/store_config.hpp"
#include "runtime/storage/store_lock.hpp"

namespace rmq::storage {

/// What recovery did, for logs, dumps and tests.
struct recovery_info {
  bool crashed = false;   // the abort marker was there
  int64_t scan_from = 0;  // first scanned commit-log offset
  int64_t end_offset = 0; // end of the last valid record
  int64_t records = 0;    // records verified
  int64_t duration_us = 0;
  /// Damaged commit-log ranges with valid records after them: skipped and
  /// kept; reads of a record in them answer `corrupt_data`.
  std::vector<corruption> corruptions;
  /// Where the torn tail began that recovery cut, or -1.
  int64_t torn_tail_offset = -1;
  /// Segments deleted because no valid record followed the cut.
  size_t dropped_segments = 0;
  /// The checkpoint was missing or damaged: the whole log was scanned.
  bool checkpoint_damaged = false;
  /// Consume queues and index files that did not look as the queue service
  /// writes them, each with why: deleted and built again from the log.
  std::vector<std::string> rebuilt;
};

class message_store {
public:
  /// Locks `cfg.dir` (store_lock: fails at once when another process has
  /// it), then opens and recovers it (docs/storage.md, Recovery).
  /// `now_ms` is the dedup clock (the wall clock in the node): unique ids
  /// stored in [now_ms - dedup_window, now_ms] go back into the dedup table.
  static caf::expected<std::shared_ptr<message_store>>
  open(const store_config& cfg, int64_t now_ms);

  /// Without `close`, the store is left as a crash would leave it.
  ~message_store();

  /// Clean shutdown: flush, dispatch, checkpoint, remove the abort marker.
  caf::error close();

  // -- writer -----------------------------------------------------------------

  /// Validates, deduplicates and appends one message. `store_ts` is the wall
  /// clock, `now_ms` the dedup clock (the same as `open`'s; in the node
  /// also the wall clock, tests pass their own).
  put_result put(const store_message& msg, int64_t store_ts, int64_t now_ms);

  /// Appends a batch under one lock; one result per message.
  std::vector<put_result> put(const std::vector<store_message>& batch,
                              int64_t store_ts, int64_t now_ms);

  /// Why writes are refused now, if they are (failed flush, disk full).
  caf::error writable() const;

  /// A slave's store refuses puts (store_config::slave); a promotion
  /// (docs/replication.md) turns it into a master's.
  void set_slave(bool slave) {
    slave_ = slave;
  }

  bool slave() const {
    return slave_;
  }

  /// Re-reads the disk usage of the store's file system.
  void refresh_disk_usage();

  /// Deletes expired segments (or the oldest one when the disk is above the
  /// clean ratio); never beyond what is flushed and dispatched.
  size_t delete_expired(int64_t now_wall_ms);

  // -- replication (docs/replication.md) ----------------------------------------

  /// What a master sends its slave from `from` (commit_log::read_chunk).
  caf::expected<std::string> read_log(int64_t from, size_t max_bytes) const;

  /// A slave's append of its master's bytes at `from`, its write offset
  /// (commit_log::append_chunk: checked whole, or nothing is written).
  /// The queue offsets the records carry become this store's next ones,
  /// so a promoted slave goes on where its master stopped. Dispatch
  /// follows as after a put.
  caf::error append_replica(int64_t from, std::string_view bytes);

  /// The store's master terms (the epoch file, docs/replication.md,
  /// "Epochs"), oldest first.
  std::vector<epoch_entry> epochs() const;

  /// A master's new term, beginning at the write offset: the next epoch
  /// after the last one this store knows, or the seconds since 2020 at
  /// `now_ms` (the wall clock) when that is larger — two nodes that each
  /// begin a term without hearing of the other (a restarted old master
  /// and a promoted slave) then get two epochs, not one. Saved before it
  /// returns.
  caf::expected<int32_t> begin_term(int64_t now_ms);

  /// A slave's: takes its master's terms that began at or before its
  /// write offset and that it does not have yet, so that it knows the
  /// terms of what it copied (for when it is promoted and the old master
  /// comes back as its slave).
  caf::error adopt_terms(const std::vector<epoch_entry>& master);

  /// A slave's, before it copies from a master (`master`: its terms,
  /// `master_end`: its write offset): finds where the two histories part
  /// (`consistent_point`) and answers the offset to copy from. A slave
  /// holding records of a term its master never had is cut there (those
  /// records were never acknowledged by the group's new history); a slave
  /// ahead of its master in the same term, or sharing no term with it, is
  /// refused (`invalid_parameter`) and nothing is cut.
  caf::expected<int64_t> reconcile(const std::vector<epoch_entry>& master,
                                   int64_t master_end);

  /// Cuts the store at `offset` (commit_log::truncate): units of the
  /// consume queues past it go, the next queue offsets follow what is
  /// left, and a checkpoint records it before it returns.
  caf::error truncate_log(int64_t offset);

  // -- flush --------------------------------------------------------------------

  /// Makes the commit log durable up to `up_to`. A failure makes the store
  /// refuse all further writes: after a failed fdatasync nothing written
  /// before it can be trusted to reach the disk.
  caf::expected<int64_t> flush(int64_t up_to);

  /// Under sync flush, one warm step (see `commit_log::warm`, sized by
  /// `warm_ahead_bytes` / `warm_chunk_bytes`); false when nothing is left
  /// to warm or warming is off. For the warm actor.
  caf::expected<bool> warm();

  /// Whether the writer should ask the warm actor for more.
  bool needs_warm() const {
    return log_.needs_warm(warm_ahead());
  }

  /// Bytes kept warm ahead of the writer under this flush mode.
  size_t warm_ahead() const {
    return cfg_.flush == flush_mode::sync ? cfg_.warm_ahead_bytes
                                          : cfg_.populate_ahead_bytes;
  }

  // -- queue service -------------------------------------------------------------

  /// Builds consume-queue units and index entries for records up to `up_to`.
  caf::error dispatch(int64_t up_to);

  /// The same, but stops before the first record that needs a consume
  /// queue or index file not yet open (creating one is blocking I/O):
  /// answers whether it got to `up_to`. For a queue service on a shared
  /// thread, which leaves the rest to one that may block.
  caf::expected<bool> dispatch_without_files(int64_t up_to);

  /// Syncs consume queues and index, then writes the checkpoint.
  caf::error save_checkpoint();

  /// The same in two steps, so that the fdatasyncs do not hold the
  /// queue service's lock (dispatches and reads go on meanwhile):
  /// `prepare_checkpoint` takes the lock only to note the files written
  /// since the last checkpoint and what the checkpoint will say;
  /// `finish_checkpoint` (on a thread that may block) syncs those files
  /// and writes the checkpoint. A failed finish makes the next checkpoint
  /// sync the whole file system.
  void prepare_checkpoint();
  caf::error finish_checkpoint();

  /// Moves queue minimums past deleted segments and drops unused files.
  void clean_consume_queues();

  /// Rebuilds from the commit log every consume queue a read found
  /// damaged since the last call (a unit naming no record of its own; the
  /// read answered system_busy). Scans the log: may block. Answers how
  /// many it rebuilt.
  caf::expected<size_t> repair_queues();

  /// Whether a read found a damaged consume queue not rebuilt yet. Asked
  /// after every read, so it takes no lock.
  bool needs_repair() const {
    return repair_wanted_.load(std::memory_order_acquire);
  }

  /// Queues rebuilt by repair_queues so far.
  int64_t repaired_queues() const {
    return repaired_queues_.load(std::memory_order_relaxed);
  }

  /// Removes the consume queues of `topic` (files included) and its next
  /// queue offsets; its records written so far build no queue again, also
  /// after a restart (a tombstone, kept until retention removed them).
  /// Answers how many queues it removed.
  caf::expected<size_t> delete_topic(std::string_view topic);

  /// Records of a queue from `req.offset`, as stored (no body CRC: the
  /// consumer checks it, see `decode_pulled`). A read that starts at a
  /// record recovery found damaged, or whose header is invalid, answers
  /// `corrupt_data` naming it; a read that reaches one stops before it
  /// (`next_begin_offset` is its queue offset).
  ///
  /// With `far_back`, a read whose first record lies further back than
  /// `in_memory_bytes` from the log's end (RocketMQ's
  /// accessMessageInMemoryMaxRatio rule) reads nothing and sets it: a
  /// queue service on a shared thread hands such reads to one that may wait
  /// for the disk.
  caf::expected<get_message_result> get_messages(const get_message_request& req,
                                                 bool* far_back = nullptr);

  queue_offsets offsets(const std::string& topic, int32_t queue_id);
  int64_t search_offset(const search_offset_request& req);
  caf::expected<std::string> lookup(int64_t phys_offset);
  query_message_result query(const query_message_request& req);
  /// Consume-queue units of a queue from `req.offset` (or its minimum),
  /// without their records; blank units are left out.
  queue_units units(const queue_units_request& req);

  // -- state --------------------------------------------------------------------

  int64_t write_offset() const {
    return log_.write_offset();
  }

  int64_t flushed_offset() const {
    return log_.flushed_offset();
  }

  int64_t dispatched_offset() const {
    return dispatched_.load(std::memory_order_acquire);
  }

  /// How far readers may see: the write offset, or under sync flush the
  /// flushed offset.
  int64_t dispatchable_offset() const {
    return config().flush == flush_mode::sync ? flushed_offset()
                                              : write_offset();
  }

  /// The writer's one-way dispatch notes (one on its way at most, so the
  /// queue service's mailbox stays small): true when the caller must send
  /// one. The queue service releases the note before it reads how far to
  /// dispatch, so an offset published before a refused claim is always
  /// covered by the note on its way.
  bool claim_dispatch_note() {
    return !dispatch_noted_.exchange(true);
  }
  void release_dispatch_note() {
    dispatch_noted_.store(false);
  }

  /// The note a master's replication service waits for while it holds a
  /// slave's ask: it asks for one (`want_replica_note`) and then reads the
  /// log again; the writer, after an append, tells it only when it claims
  /// one. The fences make sure that of an append and an ask crossing each
  /// other, one side sees the other: the ask is never left unwoken, and a
  /// broker without waiting slaves sends nothing per batch.
  void want_replica_note() {
    replica_noted_.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  bool claim_replica_note() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return replica_noted_.exchange(false, std::memory_order_relaxed);
  }

  int64_t min_offset() const {
    return log_.min_offset();
  }

  double disk_usage() const {
    return disk_usage_.load();
  }

  const recovery_info& recovery() const {
    return recovery_;
  }

  const store_config& config() const {
    return cfg_;
  }

  size_t consume_queue_count();

  /// Topic -> queue count (highest queue id + 1) of the consume queues:
  /// what a damaged topic table is rebuilt from.
  std::map<std::string, int32_t> queue_counts();

  /// The sum of the max offsets of `topic`'s queues: grows exactly when a
  /// message of the topic was dispatched.
  int64_t topic_max_total(std::string_view topic);
  size_t dedup_size();

  /// Cleanings that deleted segments before their retention (disk above
  /// the clean-forcibly ratio).
  int64_t forced_deletions() const {
    return forced_deletions_.load(std::memory_order_relaxed);
  }

  /// Reads so far that met a corrupt record (refused, or stopped before it).
  int64_t corrupt_reads() const {
    return corrupt_reads_.load(std::memory_order_relaxed);
  }

  commit_log& log() {
    return log_;
  }

  explicit message_store(const store_config& cfg);

private:
  // Why a put is refused now: a slave's store, or not writable.
  caf::error put_allowed() const;

  caf::error recover(int64_t now_ms);
  caf::error load_consume_queues();
  consume_queue* find_queue(std::string_view topic, int32_t queue_id);
  caf::expected<consume_queue*> get_or_create_queue(std::string_view topic,
                                                    int32_t queue_id);
  caf::error dispatch_record(const record_view& rec, int64_t phys);
  caf::error damaged_at(int64_t phys) const;
  static caf::error check_unit(const get_message_request& req,
                               int64_t queue_offset, const char* record);
  static bool misplaced_offset(const consume_queue& cq, const record_view& rec,
                               int64_t phys);
  // The consume-queue unit of the record at `phys`.
  cq_unit unit_of(const record_view& rec, int64_t phys) const;
  // Whether the unit at `queue_offset` names a record of its queue and
  // offset (a unit that names none is damaged, not the record).
  bool unit_names_record(const consume_queue& cq, int64_t queue_offset) const;
  // Whether `u` names a record slot whose record is damaged: its header
  // does not decode or claims another offset, and the range ends where
  // the next record (or the log) begins; or the record there belongs to
  // no queue slot at all.
  bool names_damaged_record(const cq_unit& u);
  caf::error fill_damaged_slots(consume_queue& cq, int64_t queue_offset,
                                int64_t phys, std::vector<corruption>& damage);
  // Without `may_block`, stops (and sets *stopped) before a record that
  // `dispatch_needs_file`.
  caf::error dispatch_locked(int64_t up_to, bool may_block = true,
                             bool* stopped = nullptr);
  bool dispatch_needs_file(const record_view& rec, int64_t phys);
  size_t in_memory_budget() const;
  // Deleted topics (message_store_topics.cpp).
  caf::error load_tombstones();
  caf::error save_tombstones();
  bool deleted_record(std::string_view topic, int64_t phys) const;
  void prune_tombstones(int64_t log_min);
  // The checkpoint's steps: what to sync and say (under reader_mtx_, and
  // checkpoint_mtx_ unless the store is opening), then the syncs and the
  // file (checkpoint_mtx_ only). save_checkpoint_locked does both.
  struct checkpoint_plan {
    bool syncfs = false;
    std::vector<mapped_file_ptr> files;
    checkpoint values;
  };
  checkpoint_plan plan_checkpoint_locked();
  caf::error run_checkpoint(const checkpoint_plan& plan);
  caf::error save_checkpoint_locked();
  // `key` is the message's `dedup_key`.
  put_result put_locked(const store_message& msg, uint64_t key,
                        int64_t store_ts, int64_t now_ms);
  // The message's dedup hash, or 0 when it is not deduplicated.
  uint64_t dedup_key(const store_message& msg) const;
  // The put result of the record at `phys_offset` when it has the dedup
  // key of `msg`.
  std::optional<put_result> original(int64_t phys_offset,
                                     const store_message& msg) const;

  store_config cfg_;
  // Held from before recovery until the store is dropped.
  store_lock lock_;
  // The epoch file; its own lock: a master's replication service reads it
  // while the writer may begin a term.
  std::optional<epoch_file> epochs_;
  mutable std::mutex epoch_mtx_;
  commit_log log_;
  index_service index_;
  dedup_table dedup_;
  // messageDelayLevel, parsed at open: tags codes of schedule records.
  delay_table delays_;
  recovery_info recovery_;

  // Writer part.
  std::mutex writer_mtx_;
  std::map<std::string, std::vector<int64_t>, std::less<>> next_offsets_;

  // Queue service part.
  std::mutex reader_mtx_;
  using queue_list = std::vector<std::unique_ptr<consume_queue>>;
  std::map<std::string, queue_list, std::less<>> queues_;
  // Deleted topic -> commit-log offset below which its records are skipped.
  std::map<std::string, int64_t, std::less<>> tombstones_;
  std::atomic<int64_t> dispatched_{0};
  std::atomic<bool> dispatch_noted_{false};
  std::atomic<bool> replica_noted_{false};
  int64_t last_store_ts_ = 0;

  // The checkpoint prepared and not finished yet (checkpoint_mtx_), and
  // whether a failed one left files unsynced (the next one: syncfs).
  std::mutex checkpoint_mtx_;
  std::optional<checkpoint_plan> checkpoint_plan_;
  std::atomic<bool> checkpoint_failed_{false};

  std::atomic<bool> failed_{false};
  std::atomic<bool> closed_{false};
  std::atomic<bool> slave_{false};
  std::atomic<double> disk_usage_{0.0};
  std::atomic<int64_t> corrupt_reads_{0};
  // Queues a read found damaged (reader_mtx_), and how many were rebuilt.
  std::set<std::pair<std::string, int32_t>> needs_repair_;
  // !needs_repair_.empty(), for readers without the lock.
  std::atomic<bool> repair_wanted_{false};
  // Under reader_mtx_: `queue` is rebuilt at the next repair_queues.
  void want_repair(const std::pair<std::string, int32_t>& queue) {
    needs_repair_.insert(queue);
    repair_wanted_.store(true, std::memory_order_release);
  }
  // Offsets whose read led to a rebuild: failing again, their record is
  // the damaged one.
  std::set<std::tuple<std::string, int32_t, int64_t>> repaired_at_;
  std::atomic<int64_t> repaired_queues_{0};
  std::atomic<int64_t> forced_deletions_{0};
};

} // namespace rmq::storage
