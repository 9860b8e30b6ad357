#include "actors/broker/store/commit_log_writer.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "caf/exit_reason.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/storage/replica_terms.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* commit_log_state::name = "commit_log_writer";

namespace {

using self_ptr = network_pointer<commit_log_writer_actor, commit_log_state>;

int64_t to_ms(caf::timespan x) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(x).count();
}

// Ticks between two housekeeping passes (retention).
constexpr int64_t ticks_per_cleanup = 20;

// The store's wall clock (store timestamps, dedup, retention).
int64_t wall_now(const commit_log_state& st) {
  return st.store->config().wall_clock.now_ms();
}

bool sync_mode(const commit_log_state& st) {
  return st.store->config().flush == storage::flush_mode::sync;
}

void request_flush(self_ptr self);

// Keeps the warm actor ahead of the appends (one tick in
// flight, claimed in the store, so its answer costs this thread nothing).
void request_warm(self_ptr self) {
  auto& st = self->state;
  if (st.warmer && st.store->needs_warm() && st.store->log().claim_warm())
    self->send(st.warmer, tick_atom::value);
}

// Tells the queue service there is more to dispatch: one one-way note on its
// way at most (claimed in the store), so its mailbox stays small however
// fast batches arrive, and its end wakes nobody. A failed dispatch is
// logged by the queue service; the next note tries again.
void note_dispatch(self_ptr self) {
  auto& st = self->state;
  if (!st.stopped && st.store->claim_dispatch_note())
    self->send(st.queue_service, dispatch_atom::value);
}

// Acknowledges the waiting batches, in order, that are on disk (sync
// flush) and at a slave (SYNC_MASTER) as they asked.
void deliver_done(commit_log_state& st) {
  auto flushed = st.store->flushed_offset();
  while (!st.waiting_acks.empty()) {
    auto& w = st.waiting_acks.front();
    if ((w.need_flush && w.end > flushed)
        || (w.need_replica && w.end > st.replica_acked))
      break;
    w.rp.deliver(std::move(w.results));
    st.waiting_acks.pop_front();
  }
}

// Whether a waiting batch still needs an fdatasync.
bool flush_wanted(const commit_log_state& st) {
  auto flushed = st.store->flushed_offset();
  for (auto& w : st.waiting_acks)
    if (w.need_flush && w.end > flushed)
      return true;
  return false;
}

void on_flushed(self_ptr self, int64_t) {
  auto& st = self->state;
  st.flush_in_flight = false;
  st.last_flush = self->clock().now();
  deliver_done(st);
  // Under sync flush, readers only see what is on disk.
  if (sync_mode(st))
    note_dispatch(self);
  if (flush_wanted(st))
    request_flush(self);
}

// SYNC_MASTER: a slave heard from lately and not too far behind `end`.
bool slave_in_sync(self_ptr self, int64_t end) {
  auto& st = self->state;
  return storage::slave_in_sync(st.store->config(), end, st.replica_acked,
                                self->clock().now() - st.replica_seen);
}

// Fails every waiting batch: none of them may count as sent.
void on_flush_failed(self_ptr self, const caf::error& err) {
  auto& st = self->state;
  st.flush_in_flight = false;
  RMQ_ERROR("store", "flush failed, failing " << st.waiting_acks.size()
                                              << " batches: " << describe(err));
  for (auto& w : st.waiting_acks)
    w.rp.deliver(err);
  st.failed_batches += static_cast<int64_t>(st.waiting_acks.size());
  st.waiting_acks.clear();
}

void request_flush(self_ptr self) {
  auto& st = self->state;
  if (st.flush_in_flight || st.stopped)
    return;
  st.flush_in_flight = true;
  ++st.flush_requests;
  // One fdatasync for everything written so far: group commit.
  self
    ->request(st.flusher, caf::infinite, flush_atom::value,
              st.store->write_offset())
    .then([self](int64_t flushed) { on_flushed(self, flushed); },
          [self](const caf::error& err) { on_flush_failed(self, err); });
}

void update_busy(commit_log_state& st) {
  auto& cfg = st.store->config();
  auto backlog = st.backlog();
  if (st.busy && backlog < static_cast<int64_t>(cfg.pending_low_watermark))
    st.busy = false;
  else if (!st.busy
           && backlog > static_cast<int64_t>(cfg.pending_high_watermark))
    st.busy = true;
}

// Answers the waiting batches whose sync flush took longer than
// sync_flush_timeout: their messages are stored, so each result keeps its
// offsets and gets flush_disk_timeout (RocketMQ FLUSH_DISK_TIMEOUT). The
// flush goes on; later batches still wait for it.
void expire_waiting(self_ptr self) {
  auto& st = self->state;
  auto now = self->clock().now();
  auto flushed = st.store->flushed_offset();
  while (!st.waiting_acks.empty() && st.waiting_acks.front().deadline <= now) {
    auto& w = st.waiting_acks.front();
    // Not on disk is the graver: said first, as RocketMQ does.
    bool disk = w.need_flush && w.end > flushed;
    for (auto& r : w.results)
      if (!r.error)
        r.error = disk ? make_error(errc::flush_disk_timeout,
                                    "not on disk within sync_flush_timeout")
                       : make_error(errc::flush_slave_timeout,
                                    "no slave confirmed it within "
                                    "sync_flush_timeout");
    w.rp.deliver(std::move(w.results));
    st.waiting_acks.pop_front();
    ++(disk ? st.flush_timeouts : st.slave_timeouts);
  }
}

// Says each change of the disk's state once, in words: sends refused or
// accepted again, data deleted before its retention or kept.
void note_disk(commit_log_state& st) {
  auto& cfg = st.store->config();
  auto usage = st.store->disk_usage();
  int level = usage > cfg.disk_full_ratio    ? 2
              : usage > cfg.disk_clean_ratio ? 1
                                             : 0;
  if (level == st.disk_level)
    return;
  auto pct = [](double x) { return std::to_string(static_cast<int>(x * 100)); };
  auto disk = "disk of " + cfg.dir + " is " + pct(usage) + "% used";
  if (level == 2)
    RMQ_WARN("store", disk << ", above diskSpaceWarningLevelRatio "
                           << pct(cfg.disk_full_ratio)
                           << "%: sends are refused (service not "
                              "available) until space is freed");
  else if (level == 1 && st.disk_level == 0)
    RMQ_WARN("store", disk << ", above diskSpaceCleanForciblyRatio "
                           << pct(cfg.disk_clean_ratio) << "%: "
                           << (cfg.clean_forcibly
                                 ? "the oldest commit-log segments are "
                                   "deleted before their retention, "
                                   "consumed or not"
                                 : "nothing is deleted before its retention "
                                   "(cleanFileForciblyEnable is off): sends "
                                   "will be refused at "
                                     + pct(cfg.disk_full_ratio) + "%"));
  else if (level == 1)
    RMQ_WARN("store", disk << ", below diskSpaceWarningLevelRatio "
                           << pct(cfg.disk_full_ratio)
                           << "%: sends are accepted again");
  else
    RMQ_WARN("store", disk << ": back below " << pct(cfg.disk_clean_ratio)
                           << "%"
                           << (st.disk_level == 2 ? ", sends are accepted "
                                                    "again"
                                                  : ""));
  st.disk_level = level;
}

void on_tick(self_ptr self) {
  auto& st = self->state;
  auto& cfg = st.store->config();
  st.store->refresh_disk_usage();
  note_disk(st);
  if (sync_mode(st) || cfg.sync_replication)
    expire_waiting(self);
  if (!sync_mode(st)) {
    // Async flush: every interval when enough is dirty, and everything now
    // and then (RocketMQ flushCommitLogLeastPages / ThoroughInterval).
    auto dirty = st.store->write_offset() - st.store->flushed_offset();
    auto since = self->clock().now() - st.last_flush;
    if (dirty >= static_cast<int64_t>(cfg.flush_least_bytes)
        || (dirty > 0 && since >= cfg.flush_thorough_interval))
      request_flush(self);
  }
  if (++st.ticks % ticks_per_cleanup == 0)
    st.deleted_segments
      += static_cast<int64_t>(st.store->delete_expired(wall_now(st)));
  update_busy(st);
  self->delayed_send(self, cfg.flush_interval, tick_atom::value);
}

} // namespace

nlohmann::json commit_log_state::dump_fields() const {
  const auto& st = *this;
  auto& cfg = st.store->config();
  size_t waiting_bytes = 0;
  for (auto& w : st.waiting_acks)
    waiting_bytes += w.bytes;
  return {
    {"flush_mode", sync_mode(st) ? "sync" : "async"},
    {"write_offset", st.store->write_offset()},
    {"flushed_offset", st.store->flushed_offset()},
    {"replica_chunks", st.replica_chunks},
    {"sync_replication", cfg.sync_replication},
    {"replica_acked_offset", st.replica_acked},
    {"slave_timeouts", st.slave_timeouts},
    {"slave_unavailable", st.slave_unavailable},
    {"dispatched_offset", st.store->dispatched_offset()},
    {"min_offset", st.store->min_offset()},
    {"backlog_bytes", st.backlog()},
    {"high_watermark_bytes", cfg.pending_high_watermark},
    {"low_watermark_bytes", cfg.pending_low_watermark},
    {"busy", st.busy},
    {"waiting_batches", st.waiting_acks.size()},
    {"waiting_bytes", waiting_bytes},
    {"flush_in_flight", st.flush_in_flight},
    {"flush_interval_ms", to_ms(cfg.flush_interval)},
    {"disk_usage", st.store->disk_usage()},
    {"disk_full_ratio", cfg.disk_full_ratio},
    {"batches", st.batches},
    {"messages", st.messages},
    {"duplicates", st.duplicates},
    {"rejected", st.rejected},
    {"refused_busy", st.refused_busy},
    {"flush_requests", st.flush_requests},
    {"failed_batches", st.failed_batches},
    {"flush_timeouts", st.flush_timeouts},
    {"sync_flush_timeout_ms", to_ms(cfg.sync_flush_timeout)},
    {"deleted_segments", st.deleted_segments},
    {"forced_deletions", st.store->forced_deletions()},
    {"refused_disk_full", st.refused_disk_full},
    {"disk_clean_forcibly_ratio", cfg.disk_clean_ratio},
    {"clean_forcibly", cfg.clean_forcibly},
    {"recovery_corrupt_ranges", st.store->recovery().corruptions.size()},
    {"recovery_torn_tail_offset", st.store->recovery().torn_tail_offset},
  };
}

int64_t commit_log_state::backlog() const {
  auto done = std::min(store->flushed_offset(), store->dispatched_offset());
  return store->write_offset() - done;
}

commit_log_writer_actor::behavior_type commit_log_writer(
  network_pointer<commit_log_writer_actor, commit_log_state> self,
  std::shared_ptr<storage::message_store> store, flush_service_actor flusher,
  queue_service_actor queue_service, warm_service_actor warmer) {
  auto& st = self->state;
  st.store = std::move(store);
  st.flusher = std::move(flusher);
  st.queue_service = std::move(queue_service);
  st.warmer = std::move(warmer);
  request_warm(self);
  st.last_flush = self->clock().now();
  st.store->refresh_disk_usage();
  note_disk(st);
  self->delayed_send(self, st.store->config().flush_interval, tick_atom::value);
  // Fails every waiting batch when told to stop. Not in an attached
  // functor: CAF destroys the state before those run. (An exit with reason
  // kill skips this handler; its senders get no answer.)
  self->set_exit_handler([self](caf::exit_msg& em) {
    auto& st = self->state;
    st.stopped = true;
    for (auto& w : st.waiting_acks)
      w.rp.deliver(make_error(errc::service_not_available, "store stopped"));
    st.waiting_acks.clear();
    self->quit(em.reason);
  });
  return {
    [=](caf::put_atom, std::vector<store_message>& batch)
      -> caf::result<std::vector<put_result>> {
      auto& st = self->state;
      auto& cfg = st.store->config();
      update_busy(st);
      if (st.busy) {
        ++st.refused_busy;
        return make_error(errc::system_busy,
                          "store backlog " + std::to_string(st.backlog())
                            + " bytes above the high watermark");
      }
      if (auto err = st.store->writable()) {
        if (err == errc::disk_full) {
          ++st.refused_disk_full;
          note_disk(st);
        }
        return err;
      }
      ++st.batches;
      auto before = st.store->write_offset();
      // Dedup runs on the wall clock too: after a restart the table is
      // refilled from store timestamps.
      auto now = wall_now(st);
      auto results = st.store->put(batch, now, now);
      bool any_ok = false;
      bool any_duplicate = false;
      for (auto& r : results) {
        if (r.error)
          ++st.rejected;
        else
          any_ok = true;
        any_duplicate |= r.duplicate && !r.error;
        st.duplicates += r.duplicate ? 1 : 0;
      }
      st.messages += static_cast<int64_t>(batch.size());
      auto end = st.store->write_offset();
      request_warm(self);
      if (st.ha && end > before && st.store->claim_replica_note())
        self->send(st.ha, tick_atom::value);
      // A producer's retry of a message stored before (a duplicate) is
      // answered with the stored one's offsets: under SYNC_MASTER only
      // once the slave has it too, or the retry of a FLUSH_SLAVE_TIMEOUT
      // would come back SEND_OK for a single copy. The wait is for the
      // log's end, which is at or past the original's.
      bool need_replica = cfg.sync_replication && any_ok
                          && (end > before
                              || (any_duplicate && st.replica_acked < end));
      if (need_replica && !slave_in_sync(self, end)) {
        // Stored all the same: the producer hears it is on one copy.
        for (auto& r : results)
          if (!r.error)
            r.error = make_error(errc::slave_not_available, "no slave in sync");
        ++st.slave_unavailable;
        need_replica = false;
      }
      bool need_flush = sync_mode(st) && any_ok
                        && end > st.store->flushed_offset();
      if (!sync_mode(st)) {
        if (end > before)
          note_dispatch(self);
        if (end - st.store->flushed_offset()
            >= static_cast<int64_t>(cfg.flush_eager_bytes))
          request_flush(self);
      }
      if (!need_flush && !need_replica)
        return results;
      auto rp = self->make_response_promise<std::vector<put_result>>();
      st.waiting_acks.push_back({end, std::move(results), rp,
                                 static_cast<size_t>(end - before),
                                 self->clock().now() + cfg.sync_flush_timeout,
                                 need_flush, need_replica});
      if (need_flush)
        request_flush(self);
      return rp;
    },
    [=](replica_atom, const replica_chunk& chunk) -> caf::result<int64_t> {
      auto& st = self->state;
      if (auto err = st.store->append_replica(chunk.from, chunk.bytes)) {
        if (err == errc::disk_full)
          note_disk(st);
        return err;
      }
      // The terms of what it now has: for when it is promoted.
      if (auto err = st.store->adopt_terms(storage::to_epochs(chunk.terms)))
        return err;
      ++st.replica_chunks;
      request_warm(self);
      // As after a put: readers see the copy once dispatched, and under
      // sync flush only what is on disk.
      if (sync_mode(st))
        request_flush(self);
      else
        note_dispatch(self);
      return st.store->write_offset();
    },
    [=](reconcile_atom, const replica_chunk& chunk) -> caf::result<int64_t> {
      auto& st = self->state;
      auto from = st.store->reconcile(storage::to_epochs(chunk.terms),
                                      chunk.master_end);
      if (!from)
        return std::move(from.error());
      // A cut log: readers must not see what went (the queue service reads
      // the dispatched offset again).
      note_dispatch(self);
      return *from;
    },
    [=](caf::subscribe_atom, const ha_service_actor& ha) {
      self->state.ha = ha;
    },
    [=](replicated_atom, int64_t acked) {
      auto& st = self->state;
      st.replica_acked = acked;
      st.replica_seen = self->clock().now();
      deliver_done(st);
    },
    [=](tick_atom) {
      if (!self->state.stopped)
        on_tick(self);
    },
    dump_handler(self),
  };
}

} // namespace rmq
