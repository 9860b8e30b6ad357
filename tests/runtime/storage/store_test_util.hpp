// Helpers for storage tests (after LevelDB's db/log_test.cc): damage
// helpers, a small store config and message builders (the temp folder is in
// tests/support/temp_dir.hpp).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "messages/store/store.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/storage/message_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace rmq::test {

/// Flips every bit of the byte at `offset` of `file`.
inline void flip_byte(const std::string& file, size_t offset) {
  std::fstream f{file, std::ios::in | std::ios::out | std::ios::binary};
  REQUIRE(f.good());
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(~c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

/// Cuts `file` to `size` bytes.
inline void truncate_file(const std::string& file, size_t size) {
  std::filesystem::resize_file(file, size);
}

/// The commit-log segment file that starts at `base`.
inline std::string segment_path(const std::string& dir, int64_t base) {
  return dir + "/commitlog/" + storage::offset_file_name(base);
}

inline store_message make_message(std::string topic, int32_t queue_id,
                                  std::string body, std::string tags = "",
                                  std::string keys = "",
                                  std::string uniq = "") {
  store_message msg;
  msg.topic = std::move(topic);
  msg.queue_id = queue_id;
  msg.body = std::move(body);
  msg.born_timestamp = 1'700'000'000'000;
  msg.born_ip = 0x0A000001;
  msg.born_port = 5000;
  if (!tags.empty())
    append_property(msg.properties, property_tags, tags);
  if (!keys.empty())
    append_property(msg.properties, property_keys, keys);
  if (!uniq.empty())
    append_property(msg.properties, property_uniq_key, uniq);
  return msg;
}

/// A small store: 64 KiB segments, 1000-unit queues, small index.
inline storage::store_config small_config(const std::string& dir) {
  storage::store_config cfg;
  cfg.dir = dir;
  cfg.segment_size = 64 * 1024;
  cfg.cq_units_per_file = 1000;
  cfg.index_slots = 101;
  cfg.index_entries = 1000;
  cfg.max_message_size = 16 * 1024;
  cfg.faults = std::make_shared<storage::fault_injection>();
  return cfg;
}

inline std::shared_ptr<storage::message_store>
open_store(const storage::store_config& cfg) {
  auto st = storage::message_store::open(cfg, 0);
  REQUIRE_MESSAGE(st, rmq::describe(st.error()));
  return *st;
}

/// Appends and dispatches `n` messages "m<i>" to topic T queue 0.
inline std::vector<put_result> put_n(storage::message_store& st, int n,
                                     int first = 0) {
  std::vector<put_result> results;
  for (int i = first; i < first + n; ++i) {
    auto res = st.put(make_message("T", 0, "m" + std::to_string(i)),
                      1'700'000'000'000 + i, 0);
    REQUIRE_FALSE(res.error);
    results.push_back(res);
  }
  REQUIRE(st.flush(st.write_offset()));
  REQUIRE_FALSE(st.dispatch(st.write_offset()));
  return results;
}

/// Bodies of the records in a read result, in order.
inline std::vector<std::string> bodies(const std::string& buffer) {
  std::vector<std::string> result;
  size_t pos = 0;
  while (pos < buffer.size()) {
    record_view rec;
    REQUIRE(decode_record(buffer.data() + pos, buffer.size() - pos, rec)
            == decode_status::ok);
    result.emplace_back(rec.body);
    pos += static_cast<size_t>(rec.total_size);
  }
  return result;
}

inline std::vector<std::string> read_all(storage::message_store& st,
                                         const std::string& topic = "T",
                                         int32_t qid = 0) {
  get_message_request req;
  req.topic = topic;
  req.queue_id = qid;
  req.max_count = 100000;
  req.max_bytes = 1 << 30;
  auto res = st.get_messages(req);
  REQUIRE_MESSAGE(res, rmq::describe(res.error()));
  return bodies(res->buffer);
}

/// What a consumer reading a whole queue gets when it steps over corrupt
/// records: the bodies it read, and the queue offsets the store refused or
/// whose body failed the CRC when decoded (the consumer side).
struct queue_read {
  std::vector<std::string> bodies;
  std::vector<int64_t> corrupt;
};

inline queue_read read_skipping(storage::message_store& st,
                                const std::string& topic = "T",
                                int32_t qid = 0) {
  queue_read result;
  get_message_request req;
  req.topic = topic;
  req.queue_id = qid;
  req.max_count = 100000;
  req.max_bytes = 1 << 30;
  auto max = st.offsets(topic, qid).max_offset;
  while (req.offset < max) {
    auto res = st.get_messages(req);
    if (!res && res.error() == errc::system_busy && st.needs_repair()) {
      // A unit that names no record of its own (a damaged record recovery
      // did not scan, after a clean stop): the queue service rebuilds the
      // queue and the pull comes again, as here.
      REQUIRE(st.repair_queues());
      continue;
    }
    if (!res) {
      REQUIRE_MESSAGE(res.error() == errc::corrupt_data,
                      rmq::describe(res.error()));
      result.corrupt.push_back(req.offset++);
      continue;
    }
    size_t pos = 0;
    for (size_t i = 0; i < res->phys_offsets.size(); ++i) {
      record_view rec;
      auto avail = res->buffer.size() - pos;
      REQUIRE(decode_record(res->buffer.data() + pos, avail, rec, false)
              == decode_status::ok);
      if (decode_record(res->buffer.data() + pos, avail, rec)
          == decode_status::ok)
        result.bodies.emplace_back(rec.body);
      else
        result.corrupt.push_back(res->queue_offsets[i]);
      pos += static_cast<size_t>(rec.total_size);
    }
    REQUIRE_GT(res->next_begin_offset, req.offset);
    req.offset = res->next_begin_offset;
  }
  return result;
}

} // namespace rmq::test
