// Opening a store: recovery after a clean shutdown or a crash, and the
// dispatch of commit-log records into consume queues and the index (RocketMQ
// DefaultMessageStore#recover, ReputMessageService). See docs/storage.md.
#include "runtime/storage/message_store.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fcntl.h>
#include <unistd.h>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/timer_message.hpp"

namespace fs = std::filesystem;

namespace rmq::storage {

caf::expected<std::shared_ptr<message_store>>
message_store::open(const store_config& cfg, int64_t now_ms) {
  // Before anything in the folder is read: another process may own it.
  auto lock = store_lock::acquire(cfg.dir);
  if (!lock)
    return std::move(lock.error());
  auto st = std::make_shared<message_store>(cfg);
  st->lock_ = std::move(*lock);
  auto delays = parse_delay_levels(cfg.message_delay_level);
  if (!delays)
    return std::move(delays.error());
  st->delays_ = std::move(*delays);
  if (auto err = st->recover(now_ms))
    return err;
  auto epochs = epoch_file::load(epoch_file_path(cfg.dir));
  if (!epochs)
    return std::move(epochs.error());
  // Recovery may have cut a torn tail under a term's start.
  if (auto err = epochs->truncate(st->write_offset()))
    return err;
  st->epochs_ = std::move(*epochs);
  return st;
}

caf::error message_store::load_consume_queues() {
  for (auto& dir : list_consume_queue_dirs(cfg_.dir + "/consumequeue")) {
    auto cq = std::make_unique<consume_queue>(cfg_, dir.topic, dir.queue_id);
    if (auto err = cq->load())
      return err;
    auto& list = queues_[dir.topic];
    auto qid = static_cast<size_t>(cq->queue_id());
    if (list.size() <= qid)
      list.resize(qid + 1);
    list[qid] = std::move(cq);
  }
  return caf::none;
}

caf::error message_store::recover(int64_t now_ms) {
  auto t0 = std::chrono::steady_clock::now();
  if (auto err = make_dirs(cfg_.dir + "/consumequeue"))
    return err;
  auto abort_path = cfg_.dir + "/abort";
  recovery_.crashed = ::access(abort_path.c_str(), F_OK) == 0;
  auto cp = checkpoint::load(cfg_.dir + "/checkpoint");
  recovery_.checkpoint_damaged = cp.damaged;
  if (cp.damaged)
    RMQ_WARN("store", "checkpoint of "
                        << cfg_.dir
                        << " is damaged: scanning the whole commit log");
  if (auto err = log_.load())
    return err;
  if (auto err = index_.load())
    return err;
  if (auto err = load_consume_queues())
    return err;
  if (auto err = load_tombstones())
    return err;
  auto each_queue = [this](auto f) {
    for (auto& kvp : queues_)
      for (auto& cq : kvp.second)
        if (cq)
          f(*cq);
  };
  // After a crash, units past the checkpoint may be half written (a unit
  // can straddle pages): drop them, they are rebuilt below.
  if (recovery_.crashed)
    each_queue(
      [&](consume_queue& cq) { cq.truncate_dirty(cp.dispatched_offset); });
  // Consume queues and the index are derived from the log: one that does
  // not look as the queue service writes it (a flipped byte, a zeroed page)
  // is deleted and built again from the whole log below, never trusted to
  // judge the log's records.
  auto extent = log_.segment_count() == 0
                  ? int64_t{0}
                  : log_.last_segment_base()
                      + static_cast<int64_t>(cfg_.segment_size);
  bool rebuild = false;
  each_queue([&](consume_queue& cq) {
    auto why = cq.check(extent);
    if (why.empty())
      return;
    auto what = "consume queue " + cq.topic() + "/"
                + std::to_string(cq.queue_id()) + ": " + why;
    RMQ_WARN("store", what << "; rebuilding it from the commit log");
    recovery_.rebuilt.push_back(std::move(what));
    cq.destroy();
    rebuild = true;
  });
  if (auto why = index_.check(extent); !why.empty()) {
    RMQ_WARN("store", "index " << why << "; rebuilding it from the commit log");
    recovery_.rebuilt.push_back("index " + why);
    index_.destroy();
    rebuild = true;
  }
  int64_t cq_end = 0;
  each_queue(
    [&](consume_queue& cq) { cq_end = std::max(cq_end, cq.max_phys_end()); });
  // Always verify at least the last segment: a damaged tail must be found
  // even after a clean shutdown.
  auto from
    = std::min({cp.dispatched_offset, cq_end, log_.last_segment_base()});
  if (rebuild)
    from = log_.min_offset();
  recovery_.scan_from = from;
  // Dedup: every unique id stored within the window goes back into the
  // table with its original result, oldest first. Segments before `from`
  // that may hold such records are read here (without CRC: they were
  // flushed before the checkpoint); the rest during the verifying scan.
  auto window_start = now_ms - cfg_.dedup_window.count();
  auto remember = [&](const record_view& rec, int64_t phys) {
    if (rec.store_timestamp < window_start)
      return;
    auto uniq = find_property(rec.properties, property_uniq_key);
    if (uniq.empty())
      return;
    // Stored at its store time, so it expires when the original would have.
    dedup_.insert(dedup_hash(rec.topic, rec.properties, rec.reconsume_times,
                             uniq),
                  phys, rec.store_timestamp);
  };
  if (dedup_.enabled())
    log_.scan(log_.first_segment_since(window_start), from, remember);
  caf::error dispatch_err;
  // Damaged ranges (and missing segments) not yet given a queue slot, in
  // log order, as the scan reports them.
  std::vector<corruption> unclaimed = log_.holes();
  auto add_unclaimed = [&](corruption bad) {
    auto at = std::upper_bound(unclaimed.begin(), unclaimed.end(), bad.offset,
                               [](int64_t x, const corruption& c) {
                                 return x < c.offset;
                               });
    unclaimed.insert(at, std::move(bad));
  };
  // Valid records whose queue offset cannot be right (see below).
  std::vector<corruption> misplaced;
  auto seg_size = static_cast<int64_t>(cfg_.segment_size);
  auto found = log_.recover(
    from, cfg_.check_crc_on_recover,
    [&](const record_view& rec, int64_t phys, bool intact) {
      if (dispatch_err)
        return;
      // A deleted topic's record: no queue, no damage (its queue offset
      // may clash with the topic's new queue).
      if (deleted_record(rec.topic, phys))
        return;
      auto seg_base = phys - phys % seg_size;
      auto cq = find_queue(rec.topic, rec.queue_id);
      if (!intact) {
        // Its header decodes: keep its queue unit, so that a read of it
        // answers "corrupt". Only where it opens no gap in its queue: a
        // damaged header could name any offset.
        if (rec.queue_offset <= (cq ? cq->max_offset() : 0))
          dispatch_err = dispatch_record(rec, phys);
        return;
      }
      // The body CRC does not cover the queue offset. One that names a
      // unit of another record, or a gap wider than the records that fit
      // since the queue's last one, is damage: dispatching it would hide
      // the records after it.
      if (cq && misplaced_offset(*cq, rec, phys)) {
        cq_unit held;
        if (cq->get(rec.queue_offset, held) && !held.damaged()
            && !unit_names_record(*cq, rec.queue_offset)) {
          // The unit is the damaged one (it names no record of its own
          // offset): this record takes its place back.
          auto what = "consume queue " + cq->topic() + "/"
                      + std::to_string(cq->queue_id()) + ": unit "
                      + std::to_string(rec.queue_offset)
                      + " named no record of its own";
          RMQ_WARN("store", what << "; repaired from the commit log");
          recovery_.rebuilt.push_back(std::move(what));
          cq->overwrite(rec.queue_offset, unit_of(rec, phys));
        } else {
          misplaced.push_back({seg_base, phys, rec.total_size,
                               "queue offset "
                                 + std::to_string(rec.queue_offset)
                                 + " does not fit its queue"});
          add_unclaimed(misplaced.back());
          return;
        }
      }
      ++recovery_.records;
      if (cq && rec.queue_offset > cq->max_offset())
        dispatch_err = fill_damaged_slots(*cq, rec.queue_offset, phys,
                                          unclaimed);
      if (!dispatch_err)
        dispatch_err = dispatch_record(rec, phys);
      if (dedup_.enabled())
        remember(rec, phys);
    },
    add_unclaimed);
  if (!found)
    return std::move(found.error());
  if (dispatch_err)
    return dispatch_err;
  // Missing segments and damaged ranges, in log order.
  recovery_.corruptions = log_.holes();
  for (auto& bad : found->corruptions)
    recovery_.corruptions.push_back(std::move(bad));
  for (auto& bad : misplaced) {
    RMQ_WARN("store", "commit log: record at " << bad.offset << ": "
                                               << bad.reason
                                               << ", skipped, kept");
    recovery_.corruptions.push_back(std::move(bad));
  }
  std::sort(recovery_.corruptions.begin(), recovery_.corruptions.end(),
            [](auto& x, auto& y) { return x.offset < y.offset; });
  recovery_.torn_tail_offset = found->torn_tail_offset;
  recovery_.dropped_segments = found->dropped_segments;
  auto end = found->end;
  recovery_.end_offset = end;
  // Units that point past the end of the log (the log was cut) go.
  each_queue([&](consume_queue& cq) {
    cq.truncate_dirty(end);
    if (cq.max_offset() > 0) {
      auto& offs = next_offsets_[cq.topic()];
      auto qid = static_cast<size_t>(cq.queue_id());
      if (offs.size() <= qid)
        offs.resize(qid + 1, 0);
      offs[qid] = cq.max_offset();
    }
  });
  dispatched_ = end;
  // What recovery found is only in the page cache so far.
  if (auto res = log_.sync(end); !res)
    return std::move(res.error());
  if (auto err = save_checkpoint_locked())
    return err;
  auto fd = ::open(abort_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return make_error(errc::io_error, "cannot create " + abort_path);
  ::close(fd);
  recovery_.duration_us = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::steady_clock::now() - t0)
                            .count();
  if (!recovery_.rebuilt.empty())
    RMQ_WARN("store", "rebuilt " << recovery_.rebuilt.size()
                                 << " damaged consume queues or index files "
                                    "of "
                                 << cfg_.dir << " from the commit log");
  RMQ_INFO("store", "recovered "
                      << cfg_.dir << ": "
                      << (recovery_.crashed ? "after a crash" : "clean")
                      << ", scanned " << recovery_.records << " records from "
                      << from << ", end " << end << ", "
                      << recovery_.corruptions.size()
                      << " corrupt ranges kept, " << recovery_.duration_us
                      << " us");
  return caf::none;
}

consume_queue* message_store::find_queue(std::string_view topic,
                                         int32_t queue_id) {
  auto i = queues_.find(topic);
  if (i == queues_.end() || queue_id < 0
      || static_cast<size_t>(queue_id) >= i->second.size())
    return nullptr;
  return i->second[static_cast<size_t>(queue_id)].get();
}

caf::expected<consume_queue*>
message_store::get_or_create_queue(std::string_view topic, int32_t queue_id) {
  if (auto cq = find_queue(topic, queue_id))
    return cq;
  if (queue_id < 0)
    return make_error(errc::corrupt_data, "negative queue id");
  auto i = queues_.find(topic);
  if (i == queues_.end())
    i = queues_.emplace(std::string{topic}, queue_list{}).first;
  auto qid = static_cast<size_t>(queue_id);
  if (i->second.size() <= qid)
    i->second.resize(qid + 1);
  i->second[qid] = std::make_unique<consume_queue>(cfg_, std::string{topic},
                                                   queue_id);
  return i->second[qid].get();
}

caf::error message_store::dispatch_record(const record_view& rec,
                                          int64_t phys) {
  if (deleted_record(rec.topic, phys))
    return caf::none;
  auto cq = get_or_create_queue(rec.topic, rec.queue_id);
  if (!cq)
    return std::move(cq.error());
  if (auto err = (*cq)->put(rec.queue_offset, unit_of(rec, phys)))
    return err;
  last_store_ts_ = rec.store_timestamp;
  return index_.put(rec, phys);
}

cq_unit message_store::unit_of(const record_view& rec, int64_t phys) const {
  auto tags = tags_code(find_property(rec.properties, property_tags));
  // A scheduled message's unit carries when it is due (RocketMQ
  // CommitLog#checkMessageAndReturnSize), so the schedule service needs
  // only the queue to know what is due.
  if (rec.topic == schedule_topic)
    if (auto level = stored_delay_level(rec.properties); level > 0)
      tags = deliver_timestamp(delays_, level, rec.store_timestamp);
  // So is a timed message's, its slot (docs/timer.md): the timer service
  // builds its wheel from the queue alone.
  if (rec.topic == timer_topic)
    if (auto out = stored_timer_out_ms(rec.properties); out >= 0)
      tags = out;
  return {phys, rec.total_size, tags};
}

bool message_store::unit_names_record(const consume_queue& cq,
                                      int64_t queue_offset) const {
  cq_unit u;
  if (!cq.get(queue_offset, u) || u.blank())
    return false;
  mapped_file_ptr hold;
  size_t avail = 0;
  auto ptr = log_.at(u.phys_offset, hold, avail);
  record_view other;
  return ptr != nullptr
         && decode_record(ptr, avail, other, false) == decode_status::ok
         && other.phys_offset == u.phys_offset && other.topic == cq.topic()
         && other.queue_id == cq.queue_id()
         && other.queue_offset == queue_offset;
}

bool message_store::names_damaged_record(const cq_unit& u) {
  mapped_file_ptr hold;
  size_t avail = 0;
  record_view rec;
  auto ptr = log_.at(u.phys_offset, hold, avail);
  if (ptr == nullptr)
    return false; // outside the log
  if (decode_record(ptr, avail, rec, false) == decode_status::ok
      && rec.phys_offset == u.phys_offset) {
    // A whole record: where its header says it belongs, the unit here is
    // wrong; belonging nowhere, its header is what is damaged (the body
    // CRC does not cover the queue id and offset).
    auto owner = find_queue(rec.topic, rec.queue_id);
    cq_unit there;
    return !(owner != nullptr && owner->get(rec.queue_offset, there)
             && !there.blank() && there.phys_offset == u.phys_offset);
  }
  // A damaged header (or one that claims another offset) where the
  // unit's whole range ends at a record (or at the end of the log, or of
  // the segment): the unit names a real slot, and the record in it is
  // what is damaged.
  auto end = u.phys_offset + u.size;
  if (end == log_.write_offset())
    return true;
  auto next = log_.at(end, hold, avail);
  if (next == nullptr)
    return false;
  auto st = decode_record(next, avail, rec, false);
  return (st == decode_status::ok && rec.phys_offset == end)
         || st == decode_status::blank;
}

bool message_store::misplaced_offset(const consume_queue& cq,
                                     const record_view& rec, int64_t phys) {
  auto max = cq.max_offset();
  if (rec.queue_offset == max)
    return false;
  if (rec.queue_offset < max) {
    cq_unit u;
    return cq.get(rec.queue_offset, u) && !u.blank() && u.phys_offset != phys;
  }
  auto room = (phys - cq.max_phys_end())
              / static_cast<int64_t>(record_fixed_size_v1);
  return rec.queue_offset - max > std::max<int64_t>(room, 0);
}

caf::error message_store::fill_damaged_slots(consume_queue& cq,
                                             int64_t queue_offset, int64_t phys,
                                             std::vector<corruption>& damage) {
  // The queue misses units before `queue_offset`: records whose header was
  // damaged. Point each missing unit at a damaged range between the
  // queue's last record and this one (the last range again when there are
  // fewer), so that reading it answers "corrupt" instead of skipping it.
  // With several queues the range may be another queue's record; it is
  // damaged either way, so no read ever gets wrong data from it.
  auto after = cq.max_phys_end();
  auto usable = [&](auto it) {
    return it != damage.end() && it->offset >= after && it->offset < phys;
  };
  auto i = std::find_if(damage.begin(), damage.end(),
                        [&](auto& bad) { return bad.offset >= after; });
  if (!usable(i))
    return caf::none; // a plain gap: blank units
  while (cq.max_offset() < queue_offset) {
    auto len
      = static_cast<int32_t>(std::min<int64_t>(i->length, INT32_MAX - 1));
    if (auto err = cq.put(cq.max_offset(),
                          {i->offset, len, cq_unit::damaged_tags}))
      return err;
    if (usable(std::next(i)))
      i = damage.erase(i);
  }
  damage.erase(i);
  return caf::none;
}

bool message_store::dispatch_needs_file(const record_view& rec, int64_t phys) {
  if (deleted_record(rec.topic, phys))
    return false;
  auto cq = find_queue(rec.topic, rec.queue_id);
  if (cq == nullptr || !cq->has_file_for(rec.queue_offset))
    return true;
  return !index_.has_room_for(rec);
}

caf::error message_store::dispatch_locked(int64_t up_to, bool may_block,
                                          bool* stopped) {
  up_to = std::min(up_to, log_.write_offset());
  auto d = dispatched_.load(std::memory_order_relaxed);
  mapped_file_ptr hold;
  while (d < up_to) {
    size_t avail = 0;
    auto ptr = log_.at(d, hold, avail);
    if (ptr == nullptr)
      break;
    record_view rec;
    auto st = decode_record(ptr, avail, rec, false);
    if (st == decode_status::blank) {
      d = hold->base_offset() + static_cast<int64_t>(hold->size());
      continue;
    }
    if (st != decode_status::ok)
      return make_error(errc::corrupt_data,
                        "dispatch: no valid record at " + std::to_string(d));
    if (!may_block && dispatch_needs_file(rec, d)) {
      *stopped = true;
      break;
    }
    if (auto err = dispatch_record(rec, d))
      return err;
    d += rec.total_size;
  }
  dispatched_.store(d, std::memory_order_release);
  return caf::none;
}

caf::error message_store::dispatch(int64_t up_to) {
  std::lock_guard<std::mutex> guard{reader_mtx_};
  if (closed_)
    return caf::none; // close() dispatched everything
  return dispatch_locked(up_to, true, nullptr);
}

caf::expected<bool> message_store::dispatch_without_files(int64_t up_to) {
  std::lock_guard<std::mutex> guard{reader_mtx_};
  if (closed_)
    return true;
  bool stopped = false;
  if (auto err = dispatch_locked(up_to, false, &stopped))
    return err;
  return !stopped;
}

message_store::checkpoint_plan message_store::plan_checkpoint_locked() {
  // Many dirty queues: one syncfs instead of an fdatasync each. The first
  // writes to a queue file's preallocated blocks are extent conversions,
  // so each fdatasync also committed the journal: with 10,000 queues
  // written, 10,000 journal commits a second were half the broker's CPU
  // (docs/benchmarks.md). After a failed sync, files counted as synced
  // may not be: syncfs then too.
  checkpoint_plan plan;
  size_t dirty = 0;
  for (auto& kvp : queues_)
    for (auto& cq : kvp.second)
      if (cq && cq->dirty())
        ++dirty;
  plan.syncfs = dirty > cfg_.cq_syncfs_threshold
                || checkpoint_failed_.exchange(false);
  for (auto& kvp : queues_)
    for (auto& cq : kvp.second) {
      if (!cq)
        continue;
      if (plan.syncfs)
        cq->mark_synced();
      else
        cq->take_unsynced(plan.files);
    }
  index_.take_unsynced(plan.files);
  auto& cp = plan.values;
  cp.physic_msg_timestamp = last_store_ts_;
  cp.logics_msg_timestamp = last_store_ts_;
  cp.index_msg_timestamp = last_store_ts_;
  cp.confirm_phy_offset = log_.flushed_offset();
  cp.dispatched_offset = std::min(dispatched_.load(), log_.flushed_offset());
  // A prepared checkpoint not finished yet: its files are counted as
  // synced, so this one syncs them before it says more.
  if (checkpoint_plan_) {
    auto& old = checkpoint_plan_->files;
    plan.files.insert(plan.files.end(), old.begin(), old.end());
    plan.syncfs = plan.syncfs || checkpoint_plan_->syncfs;
    checkpoint_plan_.reset();
  }
  return plan;
}

caf::error message_store::run_checkpoint(const checkpoint_plan& plan) {
  // Order matters: queues and index must be durable before the checkpoint
  // says so.
  caf::error err;
  if (plan.syncfs)
    err = sync_file_system(cfg_.dir); // covers the files too
  for (size_t i = 0; !plan.syncfs && !err && i < plan.files.size(); ++i)
    err = plan.files[i]->sync();
  if (!err)
    err = plan.values.save(cfg_.dir + "/checkpoint");
  if (err)
    checkpoint_failed_ = true;
  return err;
}

caf::error message_store::save_checkpoint_locked() {
  return run_checkpoint(plan_checkpoint_locked());
}

void message_store::prepare_checkpoint() {
  std::lock_guard<std::mutex> c{checkpoint_mtx_};
  std::lock_guard<std::mutex> guard{reader_mtx_};
  if (closed_)
    return;
  checkpoint_plan_ = plan_checkpoint_locked();
}

caf::error message_store::finish_checkpoint() {
  std::lock_guard<std::mutex> guard{checkpoint_mtx_};
  if (!checkpoint_plan_ || closed_)
    return caf::none; // close() wrote the last checkpoint
  auto plan = std::move(*checkpoint_plan_);
  checkpoint_plan_.reset();
  return run_checkpoint(plan);
}

caf::error message_store::save_checkpoint() {
  std::lock_guard<std::mutex> c{checkpoint_mtx_};
  std::lock_guard<std::mutex> guard{reader_mtx_};
  if (closed_)
    return caf::none; // close() wrote the last checkpoint
  return save_checkpoint_locked();
}

void message_store::clean_consume_queues() {
  std::lock_guard<std::mutex> guard{reader_mtx_};
  auto min = log_.min_offset();
  for (auto& kvp : queues_)
    for (auto& cq : kvp.second)
      if (cq)
        cq->correct_min_offset(min);
  index_.delete_below(min);
  prune_tombstones(min);
}

int64_t message_store::topic_max_total(std::string_view topic) {
  std::lock_guard<std::mutex> guard{reader_mtx_};
  auto i = queues_.find(topic);
  if (i == queues_.end())
    return 0;
  int64_t total = 0;
  for (auto& cq : i->second)
    if (cq)
      total += cq->max_offset();
  return total;
}

size_t message_store::consume_queue_count() {
  std::lock_guard<std::mutex> guard{reader_mtx_};
  size_t n = 0;
  for (auto& kvp : queues_)
    for (auto& cq : kvp.second)
      n += cq ? 1 : 0;
  return n;
}

std::map<std::string, int32_t> message_store::queue_counts() {
  std::lock_guard<std::mutex> guard{reader_mtx_};
  std::map<std::string, int32_t> result;
  for (auto& [topic, list] : queues_)
    if (!list.empty())
      result[topic] = static_cast<int32_t>(list.size());
  return result;
}

} // namespace rmq::storage
