// Reads (queue service part of message_store): records of a queue, queue
// offsets, lookups by phys offset, by time and by key (RocketMQ
// DefaultMessageStore#getMessage, #getOffsetInQueueByTime, #queryMessage).
#include "runtime/storage/message_store.hpp"

#include <algorithm>
#include <cctype>

#include <unistd.h>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/message/byte_coding.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_id.hpp"

namespace rmq::storage {

namespace {

// Units scanned per read at most, so a selective tag filter cannot make one
// read walk a whole queue (RocketMQ maxFilterMessageSize: 16 000).
constexpr int64_t max_scan_units = 16000;

} // namespace

size_t message_store::in_memory_budget() const {
  static const size_t memory = [] {
    auto pages = sysconf(_SC_PHYS_PAGES);
    auto page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0
             ? static_cast<size_t>(pages) * static_cast<size_t>(page)
             : size_t{1} << 32;
  }();
  if (cfg_.in_memory_bytes > 0)
    return cfg_.in_memory_bytes;
  auto ratio = std::clamp(cfg_.in_memory_max_ratio, 0, 100);
  return memory / 100 * static_cast<size_t>(ratio);
}

caf::expected<get_message_result>
message_store::get_messages(const get_message_request& req, bool* far_back) {
  std::lock_guard<std::mutex> guard{reader_mtx_};
  get_message_result res;
  auto set = [&](get_status st) { res.status = static_cast<uint8_t>(st); };
  auto cq = find_queue(req.topic, req.queue_id);
  if (cq == nullptr || cq->max_offset() == 0) {
    set(get_status::no_message_in_queue);
    res.next_begin_offset = 0;
    return res;
  }
  res.min_offset = cq->min_offset();
  res.max_offset = cq->max_offset();
  if (req.offset < res.min_offset) {
    set(get_status::offset_too_small);
    res.next_begin_offset = res.min_offset;
    return res;
  }
  if (req.offset == res.max_offset) {
    set(get_status::offset_overflow_one);
    res.next_begin_offset = req.offset;
    return res;
  }
  if (req.offset > res.max_offset) {
    set(get_status::offset_overflow_badly);
    res.next_begin_offset = res.max_offset;
    return res;
  }
  auto log_min = log_.min_offset();
  auto offset = req.offset;
  auto end = std::min(res.max_offset, req.offset + max_scan_units);
  bool found_null = false;
  for (; offset < end; ++offset) {
    if (static_cast<int32_t>(res.phys_offsets.size()) >= req.max_count)
      break;
    cq_unit u;
    if (!cq->get(offset, u) || u.blank())
      continue;
    if (u.phys_offset < log_min) {
      found_null = true; // deleted by retention
      continue;
    }
    if (u.damaged()) {
      // Recovery (or a rebuild) found this record damaged: never skipped
      // silently, whatever the tag filter.
      corrupt_reads_.fetch_add(1, std::memory_order_relaxed);
      if (!res.phys_offsets.empty())
        break;
      return make_error(errc::corrupt_data,
                        req.topic + "/" + std::to_string(req.queue_id)
                          + " queue offset " + std::to_string(offset)
                          + ": the record is damaged (commit log range "
                          + std::to_string(u.phys_offset) + ", "
                          + std::to_string(u.size) + " bytes); next offset "
                          + std::to_string(offset + 1));
    }
    if (!req.tag_codes.empty()
        && std::find(req.tag_codes.begin(), req.tag_codes.end(), u.tags_code)
             == req.tag_codes.end())
      continue;
    if (!res.phys_offsets.empty()
        && res.buffer.size() + static_cast<size_t>(u.size)
             > static_cast<size_t>(req.max_bytes))
      break;
    if (far_back != nullptr && res.phys_offsets.empty()
        && log_.write_offset() - u.phys_offset
             > static_cast<int64_t>(in_memory_budget())) {
      *far_back = true;
      return get_message_result{};
    }
    // Pulls hand raw bytes on without a body CRC (the consumer side checks
    // it when it decodes them: decode_pulled), so this path stays as fast
    // as a copy; ranges recovery found damaged are refused here.
    auto before = res.buffer.size();
    // A range recovery found damaged: the record is lost, not the unit.
    auto err = damaged_at(u.phys_offset);
    if (!err) {
      err = log_.read_record(u.phys_offset, res.buffer, false);
      if (!err)
        err = check_unit(req, offset, res.buffer.data() + before);
      auto queue = std::make_pair(req.topic, req.queue_id);
      // The record is the one the unit names, only the unit's size is off
      // (a flipped bit the open-time check cannot tell from a real size):
      // served as it is, and the queue rebuilt from the log after.
      if (!err
          && static_cast<int32_t>(
               get_be32(res.buffer.data() + before + pos_total_size))
               != u.size)
        want_repair(queue);
      auto where = std::make_tuple(req.topic, req.queue_id, offset);
      // The unit names no record of its queue and offset (past the log's
      // end, mid-record, another queue's): derived data, rebuilt from the
      // log (repair_queues), never a reason to skip a message. Only when
      // the rebuilt queue fails there again is the record itself damaged.
      if (err && !unit_names_record(*cq, offset) && !names_damaged_record(u)
          && (needs_repair_.count(queue) != 0
              || repaired_at_.count(where) == 0)) {
        res.buffer.resize(before);
        want_repair(queue);
        repaired_at_.insert(where);
        if (!res.phys_offsets.empty())
          break;
        return make_error(errc::system_busy,
                          "consume queue " + req.topic + "/"
                            + std::to_string(req.queue_id) + " unit "
                            + std::to_string(offset) + " is damaged ("
                            + error_detail(err)
                            + "); the broker rebuilds the queue from the "
                              "commit log, pull again");
      }
    }
    if (err) {
      res.buffer.resize(before);
      if (err != errc::corrupt_data) {
        found_null = true;
        continue;
      }
      // Never skipped silently: stop before it, or refuse a read that
      // starts at it, naming the offset to continue from.
      corrupt_reads_.fetch_add(1, std::memory_order_relaxed);
      if (!res.phys_offsets.empty())
        break;
      return make_error(errc::corrupt_data,
                        req.topic + "/" + std::to_string(req.queue_id)
                          + " queue offset " + std::to_string(offset) + ": "
                          + error_detail(err) + "; next offset "
                          + std::to_string(offset + 1));
    }
    res.phys_offsets.push_back(u.phys_offset);
    res.queue_offsets.push_back(offset);
  }
  res.next_begin_offset = offset;
  if (!res.phys_offsets.empty()) {
    set(get_status::found);
    res.suggest_pulling_from_slave = log_.write_offset()
                                       - res.phys_offsets.back()
                                     > static_cast<int64_t>(in_memory_budget());
  } else if (found_null)
    set(get_status::offset_found_null);
  else
    set(get_status::no_matched_message);
  return res;
}

queue_offsets message_store::offsets(const std::string& topic,
                                     int32_t queue_id) {
  std::lock_guard<std::mutex> guard{reader_mtx_};
  auto cq = find_queue(topic, queue_id);
  if (cq == nullptr)
    return {};
  return {cq->min_offset(), cq->max_offset()};
}

queue_units message_store::units(const queue_units_request& req) {
  std::lock_guard<std::mutex> guard{reader_mtx_};
  queue_units out;
  auto cq = find_queue(req.topic, req.queue_id);
  if (cq == nullptr)
    return out;
  out.min_offset = cq->min_offset();
  out.max_offset = cq->max_offset();
  auto n = std::max(req.max_count, 1);
  for (auto off = std::max(req.offset, out.min_offset);
       off < out.max_offset && static_cast<int32_t>(out.units.size()) < n;
       ++off) {
    cq_unit u;
    if (!cq->get(off, u) || u.blank())
      continue;
    out.units.push_back({off, u.phys_offset, u.size, u.tags_code});
  }
  return out;
}

int64_t message_store::search_offset(const search_offset_request& req) {
  std::lock_guard<std::mutex> guard{reader_mtx_};
  auto cq = find_queue(req.topic, req.queue_id);
  if (cq == nullptr)
    return 0;
  // Binary search on store timestamps; blank or deleted units count as old.
  auto ts_at = [&](int64_t off) -> int64_t {
    cq_unit u;
    mapped_file_ptr hold;
    size_t avail = 0;
    if (!cq->get(off, u) || u.blank())
      return INT64_MIN;
    auto ptr = log_.at(u.phys_offset, hold, avail);
    return ptr ? stored_timestamp(ptr) : INT64_MIN;
  };
  auto lo = cq->min_offset();
  auto hi = cq->max_offset();
  while (lo < hi) {
    auto mid = lo + (hi - lo) / 2;
    if (ts_at(mid) < req.timestamp)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

caf::error message_store::check_unit(const get_message_request& req,
                                     int64_t queue_offset, const char* record) {
  // The unit and the record must agree: a damaged header, or a unit that
  // recovery pointed at a damaged range, must not pass for this message.
  auto qid = static_cast<int32_t>(get_be32(record + pos_queue_id));
  auto qoff = static_cast<int64_t>(get_be64(record + pos_queue_offset));
  if (qid == req.queue_id && qoff == queue_offset)
    return caf::none;
  return make_error(errc::corrupt_data,
                    "record at offset "
                      + std::to_string(get_be64(record + pos_physical_offset))
                      + " names queue " + std::to_string(qid) + " offset "
                      + std::to_string(qoff) + ", not this unit");
}

caf::error message_store::damaged_at(int64_t phys) const {
  // Sorted by offset (the scan's order); empty unless recovery found damage.
  auto& bad = recovery_.corruptions;
  auto i = std::upper_bound(bad.begin(), bad.end(), phys,
                            [](int64_t x, const corruption& c) {
                              return x < c.offset;
                            });
  if (i == bad.begin() || phys >= std::prev(i)->offset + std::prev(i)->length)
    return caf::none;
  --i;
  return make_error(errc::corrupt_data,
                    "corrupt record at offset " + std::to_string(phys) + ": "
                      + i->reason + " (damaged range "
                      + std::to_string(i->offset) + ", "
                      + std::to_string(i->length) + " bytes)");
}

caf::expected<std::string> message_store::lookup(int64_t phys_offset) {
  std::string out;
  // An admin read: the body CRC is checked, a corrupt body is no data.
  if (auto err = log_.read_record(phys_offset, out, true)) {
    if (err == errc::corrupt_data)
      corrupt_reads_.fetch_add(1, std::memory_order_relaxed);
    return err;
  }
  return out;
}

query_message_result message_store::query(const query_message_request& req) {
  query_message_result res;
  auto max = static_cast<size_t>(std::max(req.max_num, 0));
  std::vector<int64_t> candidates;
  {
    std::lock_guard<std::mutex> guard{reader_mtx_};
    // Ask for more than `max`: collisions and other topics are filtered.
    candidates = index_.query(req.topic, req.key, req.begin_timestamp,
                              req.end_timestamp, max * 4 + 16);
  }
  // Only an offsetMsgId of this store: a UNIQ_KEY has the same 32-digit
  // form, and its digits read as an offset would point into a record.
  auto host
    = encode_offset_msg_id(cfg_.store_ip, cfg_.store_port, 0).substr(0, 16);
  auto own = req.key.size() >= 16
             && std::equal(
               host.begin(), host.end(), req.key.begin(), [](char x, char y) {
                 return x == std::toupper(static_cast<unsigned char>(y));
               });
  int64_t by_id = -1;
  if (own)
    if (auto id = decode_offset_msg_id(req.key)) {
      by_id = id->offset;
      candidates.insert(candidates.begin(), by_id);
    }
  for (auto phys : candidates) {
    if (res.phys_offsets.size() >= max)
      break;
    if (std::find(res.phys_offsets.begin(), res.phys_offsets.end(), phys)
        != res.phys_offsets.end())
      continue;
    std::string rec_bytes;
    if (auto err = log_.read_record(phys, rec_bytes, true)) {
      if (err == errc::corrupt_data) {
        corrupt_reads_.fetch_add(1, std::memory_order_relaxed);
        RMQ_WARN("store", "query " << req.key << ": " << describe(err));
      }
      continue;
    }
    record_view rec;
    decode_record(rec_bytes.data(), rec_bytes.size(), rec, false);
    if (rec.topic != req.topic || rec.store_timestamp < req.begin_timestamp
        || rec.store_timestamp > req.end_timestamp)
      continue;
    bool match = phys == by_id
                 || find_property(rec.properties, property_uniq_key) == req.key;
    auto keys = find_property(rec.properties, property_keys);
    while (!match && !keys.empty()) {
      auto sp = keys.find(' ');
      match = keys.substr(0, sp) == req.key;
      if (sp == std::string_view::npos)
        break;
      keys.remove_prefix(sp + 1);
    }
    if (!match)
      continue;
    res.buffer += rec_bytes;
    res.phys_offsets.push_back(phys);
  }
  return res;
}

caf::expected<size_t> message_store::repair_queues() {
  std::lock_guard<std::mutex> guard{reader_mtx_};
  auto todo = std::move(needs_repair_);
  needs_repair_.clear();
  repair_wanted_.store(false, std::memory_order_release);
  std::map<std::pair<std::string, int32_t>, consume_queue*> queues;
  for (auto& [topic, qid] : todo)
    if (auto cq = find_queue(topic, qid)) {
      cq->destroy();
      queues.emplace(std::make_pair(topic, qid), cq);
    }
  if (queues.empty())
    return size_t{0};
  caf::error failed;
  std::pair<std::string, int32_t> key;
  log_.scan(log_.min_offset(), dispatched_.load(),
            [&](const record_view& rec, int64_t phys) {
              if (failed || deleted_record(rec.topic, phys))
                return;
              key.first.assign(rec.topic);
              key.second = rec.queue_id;
              auto i = queues.find(key);
              // A header whose queue offset cannot be right (recovery's
              // test) builds nothing: it would open a gap of blanks.
              if (i == queues.end() || misplaced_offset(*i->second, rec, phys))
                return;
              auto& cq = *i->second;
              // Offsets skipped since the queue's last record belong to
              // damaged records between the two: their units say so.
              if (cq.max_offset() > 0 && rec.queue_offset > cq.max_offset()) {
                auto after = cq.max_phys_end();
                auto len = static_cast<int32_t>(
                  std::min<int64_t>(phys - after, INT32_MAX - 1));
                while (!failed && cq.max_offset() < rec.queue_offset)
                  failed = cq.put(cq.max_offset(), {after, std::max(len, 1),
                                                    cq_unit::damaged_tags});
              }
              if (!failed)
                failed = cq.put(rec.queue_offset, unit_of(rec, phys));
            });
  if (failed)
    return failed;
  for (auto& [name, cq] : queues) {
    RMQ_WARN("store", "rebuilt consume queue "
                        << name.first << "/" << name.second
                        << " from the commit log: offsets " << cq->min_offset()
                        << ".." << cq->max_offset());
    repaired_queues_.fetch_add(1, std::memory_order_relaxed);
  }
  return queues.size();
}

} // namespace rmq::storage
