#include "runtime/storage/message_store.hpp"

#include <algorithm>
#include <chrono>

#include <sys/statvfs.h>
#include <unistd.h>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/message/log_format.hpp"

namespace rmq::storage {

message_store::message_store(const store_config& cfg)
  : cfg_(cfg),
    log_(cfg),
    index_(cfg),
    dedup_(cfg.dedup_window, cfg.dedup_max_entries),
    slave_(cfg.slave) {
  // nop
}

message_store::~message_store() {
  // Deliberately no close(): dropping an unclosed store is a crash.
}

caf::error message_store::close() {
  // After a checkpoint being finished: its older values must not land
  // after the last one.
  std::lock_guard<std::mutex> c{checkpoint_mtx_};
  std::lock_guard<std::mutex> w{writer_mtx_};
  std::lock_guard<std::mutex> r{reader_mtx_};
  if (closed_)
    return caf::none;
  // Never mark a store clean whose flushes failed: recover it next time.
  if (failed_)
    return make_error(errc::io_error, "store closed after a failed flush");
  auto end = log_.write_offset();
  if (auto res = log_.sync(end); !res)
    return std::move(res.error());
  if (auto err = dispatch_locked(end))
    return err;
  if (auto err = save_checkpoint_locked())
    return err;
  closed_ = true;
  ::unlink((cfg_.dir + "/abort").c_str());
  RMQ_INFO("store", "closed " << cfg_.dir << " at offset " << end);
  return caf::none;
}

// -- writer -------------------------------------------------------------------

caf::error message_store::writable() const {
  if (closed_)
    return make_error(errc::service_not_available, "store is closed");
  if (failed_)
    return make_error(errc::io_error,
                      "store is read-only: a flush to disk failed");
  auto usage = disk_usage_.load();
  if (usage > cfg_.disk_full_ratio)
    return make_error(
      errc::disk_full,
      "service not available now: the disk of " + cfg_.dir + " is "
        + std::to_string(static_cast<int>(usage * 100))
        + "% used, above diskSpaceWarningLevelRatio "
        + std::to_string(static_cast<int>(cfg_.disk_full_ratio * 100))
        + "%; sends are refused until space is freed");
  return caf::none;
}

caf::error message_store::put_allowed() const {
  if (slave_)
    return make_error(errc::service_not_available,
                      "message store is in slave mode: a slave takes its "
                      "master's log only");
  return writable();
}

void message_store::refresh_disk_usage() {
  struct statvfs st;
  if (statvfs(cfg_.dir.c_str(), &st) != 0 || st.f_blocks == 0)
    return;
  disk_usage_
    = 1.0 - static_cast<double>(st.f_bavail) / static_cast<double>(st.f_blocks);
}

put_result message_store::put_locked(const store_message& msg, uint64_t key,
                                     int64_t store_ts, int64_t now_ms) {
  put_result res;
  if (msg.topic.empty() || msg.topic.size() > 255) {
    res.error = make_error(errc::message_illegal,
                           "topic must have 1..255 bytes");
    return res;
  }
  if (msg.queue_id < 0 || msg.queue_id > max_queue_id) {
    res.error = make_error(errc::invalid_parameter,
                           "queue id " + std::to_string(msg.queue_id)
                             + " out of range");
    return res;
  }
  if (msg.body.size() > cfg_.max_message_size) {
    res.error = make_error(errc::message_illegal,
                           "body of " + std::to_string(msg.body.size())
                             + " bytes exceeds max_message_size "
                             + std::to_string(cfg_.max_message_size));
    return res;
  }
  if (msg.properties.size() > cfg_.max_properties_size) {
    res.error = make_error(
      errc::properties_size_exceeded,
      "properties of " + std::to_string(msg.properties.size())
        + " bytes exceed " + std::to_string(cfg_.max_properties_size));
    return res;
  }
  auto size = record_size(msg);
  if (size + end_of_file_min_blank > cfg_.segment_size) {
    res.error = make_error(errc::message_illegal,
                           "record does not fit in a segment");
    return res;
  }
  if (key != 0) {
    if (auto prev = dedup_.find(key, now_ms))
      if (auto orig = original(*prev, msg)) {
        res = *orig;
        res.duplicate = true;
        return res;
      }
  }
  auto i = next_offsets_.find(msg.topic);
  if (i == next_offsets_.end())
    i = next_offsets_.emplace(msg.topic, std::vector<int64_t>{}).first;
  auto qid = static_cast<size_t>(msg.queue_id);
  if (i->second.size() <= qid)
    i->second.resize(qid + 1, 0);
  auto& next = i->second[qid];
  record_stamp stamp{next, 0, store_ts, cfg_.store_ip, cfg_.store_port};
  if (auto err = log_.append(msg, size, stamp)) {
    res.error = std::move(err);
    return res;
  }
  ++next;
  res.queue_offset = stamp.queue_offset;
  res.phys_offset = stamp.phys_offset;
  res.size = static_cast<int32_t>(size);
  res.store_timestamp = store_ts;
  if (key != 0)
    dedup_.insert(key, res.phys_offset, now_ms);
  return res;
}

std::optional<put_result>
message_store::original(int64_t phys_offset, const store_message& msg) const {
  // The table keys by hash: a hit counts only if the record it names has
  // the same key. One that can no longer be read (its segment deleted) is
  // no proof either, so the message is stored again.
  mapped_file_ptr hold;
  size_t available = 0;
  auto ptr = log_.at(phys_offset, hold, available);
  record_view rec;
  if (ptr == nullptr
      || decode_record(ptr, available, rec, false) != decode_status::ok)
    return std::nullopt;
  auto uniq = find_property(msg.properties, property_uniq_key);
  if (!same_dedup_key(rec, msg.topic, msg.properties, msg.reconsume_times,
                      uniq))
    return std::nullopt;
  put_result res;
  res.queue_offset = rec.queue_offset;
  res.phys_offset = phys_offset;
  res.size = rec.total_size;
  res.store_timestamp = rec.store_timestamp;
  return res;
}

uint64_t message_store::dedup_key(const store_message& msg) const {
  if (!dedup_.enabled())
    return 0;
  auto uniq = find_property(msg.properties, property_uniq_key);
  if (uniq.empty())
    return 0;
  // Never 0, which stands for "no key" here.
  auto key = dedup_hash(msg.topic, msg.properties, msg.reconsume_times, uniq);
  return key == 0 ? 1 : key;
}

put_result message_store::put(const store_message& msg, int64_t store_ts,
                              int64_t now_ms) {
  std::lock_guard<std::mutex> guard{writer_mtx_};
  if (auto err = put_allowed()) {
    put_result res;
    res.error = std::move(err);
    return res;
  }
  return put_locked(msg, dedup_key(msg), store_ts, now_ms);
}

std::vector<put_result>
message_store::put(const std::vector<store_message>& batch, int64_t store_ts,
                   int64_t now_ms) {
  std::vector<put_result> results;
  results.reserve(batch.size());
  std::lock_guard<std::mutex> guard{writer_mtx_};
  auto err = put_allowed();
  if (err) {
    results.resize(batch.size());
    for (auto& res : results)
      res.error = err;
    return results;
  }
  // Keys first, each slot prefetched: the lookups then find most of them
  // in the cache instead of waiting for one miss after the other.
  std::vector<uint64_t> keys;
  keys.reserve(batch.size());
  for (auto& msg : batch) {
    keys.push_back(dedup_key(msg));
    if (keys.back() != 0)
      dedup_.prefetch(keys.back());
  }
  for (size_t i = 0; i < batch.size(); ++i)
    results.push_back(put_locked(batch[i], keys[i], store_ts, now_ms));
  return results;
}

size_t message_store::delete_expired(int64_t now_wall_ms) {
  std::lock_guard<std::mutex> guard{writer_mtx_};
  auto usage = disk_usage_.load();
  size_t force = cfg_.clean_forcibly && usage > cfg_.disk_clean_ratio ? 1 : 0;
  auto safe = std::min(log_.flushed_offset(), dispatched_.load());
  auto before = log_.min_offset();
  auto n = log_.delete_expired(now_wall_ms, cfg_.retention.count(), force,
                               safe);
  if (n > 0 && force > 0) {
    // Before their retention: what no group consumed is gone for good.
    // The consumers that read below the new minimum say how much theirs
    // was (the pull processor's "offset moved" warning).
    forced_deletions_.fetch_add(1, std::memory_order_relaxed);
    RMQ_WARN("store", "disk of "
                        << cfg_.dir << " is " << static_cast<int>(usage * 100)
                        << "% used, above "
                           "diskSpaceCleanForciblyRatio "
                        << static_cast<int>(cfg_.disk_clean_ratio * 100)
                        << "%: deleted commit log [" << before << ", "
                        << log_.min_offset()
                        << ") before its retention, consumed or not "
                           "(--clean-file-forcibly-enable=false "
                           "keeps it and refuses writes instead)");
  }
  return n;
}

size_t message_store::dedup_size() {
  std::lock_guard<std::mutex> guard{writer_mtx_};
  return dedup_.size();
}

// -- flush ----------------------------------------------------------------------

caf::expected<bool> message_store::warm() {
  if (warm_ahead() == 0 || closed_ || failed_)
    return false;
  // Steps of at most a quarter of the range: the writer that catches up
  // waits for one step at most.
  auto chunk = std::min(cfg_.warm_chunk_bytes, warm_ahead() / 4);
  return log_.warm(warm_ahead(), std::max<size_t>(chunk, 4096),
                   cfg_.flush == flush_mode::sync);
}

caf::expected<int64_t> message_store::flush(int64_t up_to) {
  if (failed_)
    return make_error(errc::io_error,
                      "store is read-only: a flush to disk failed");
  auto res = log_.sync(up_to);
  if (!res) {
    failed_ = true;
    RMQ_ERROR("store", "flush failed, refusing writes from now on: "
                         << describe(res.error()));
  }
  return res;
}

} // namespace rmq::storage
