// The message store's side of replication (message_store.hpp,
// "replication").
#include <algorithm>
#include <string>

#include "runtime/message/byte_coding.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq::storage {

caf::expected<std::string> message_store::read_log(int64_t from,
                                                   size_t max_bytes) const {
  return log_.read_chunk(from, max_bytes);
}

caf::error message_store::append_replica(int64_t from, std::string_view bytes) {
  std::lock_guard<std::mutex> guard{writer_mtx_};
  if (auto err = writable())
    return err;
  if (auto err = log_.append_chunk(from, bytes))
    return err;
  // Checked by append_chunk: each record decodes.
  size_t at = 0;
  while (at < bytes.size()) {
    record_view rec;
    auto left = bytes.size() - at;
    if (decode_record(bytes.data() + at, left, rec, false)
        != decode_status::ok) {
      // A blank marker, its size the rest of its segment.
      at += get_be32(bytes.data() + at);
      continue;
    }
    auto& offs = next_offsets_[std::string{rec.topic}];
    auto qid = static_cast<size_t>(rec.queue_id);
    if (offs.size() <= qid)
      offs.resize(qid + 1, 0);
    offs[qid] = std::max(offs[qid], rec.queue_offset + 1);
    at += static_cast<size_t>(rec.total_size);
  }
  return caf::none;
}

caf::error message_store::truncate_log(int64_t offset) {
  std::lock_guard<std::mutex> c{checkpoint_mtx_};
  std::lock_guard<std::mutex> w{writer_mtx_};
  std::lock_guard<std::mutex> r{reader_mtx_};
  if (auto err = log_.truncate(offset))
    return err;
  next_offsets_.clear();
  for (auto& [topic, list] : queues_)
    for (auto& cq : list) {
      if (!cq)
        continue;
      cq->truncate_dirty(offset);
      auto& offs = next_offsets_[cq->topic()];
      auto qid = static_cast<size_t>(cq->queue_id());
      if (offs.size() <= qid)
        offs.resize(qid + 1, 0);
      offs[qid] = cq->max_offset();
    }
  if (dispatched_.load() > offset)
    dispatched_.store(offset);
  checkpoint_plan_.reset();
  return save_checkpoint_locked();
}

} // namespace rmq::storage
