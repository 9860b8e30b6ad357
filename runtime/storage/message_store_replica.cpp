// The message store's side of replication (message_store.hpp,
// "replication").
#include <algorithm>
#include <cstdint>
#include <string>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
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

std::vector<epoch_entry> message_store::epochs() const {
  std::lock_guard<std::mutex> guard{epoch_mtx_};
  return epochs_ ? epochs_->entries() : std::vector<epoch_entry>{};
}

caf::expected<int32_t> message_store::begin_term(int64_t now_ms) {
  std::lock_guard<std::mutex> guard{epoch_mtx_};
  if (!epochs_)
    return make_error(errc::service_not_available, "store is not open");
  constexpr int64_t since_2020_ms = 1'577'836'800'000;
  auto clock = (now_ms - since_2020_ms) / 1000;
  auto epoch = static_cast<int32_t>(std::max<int64_t>(
    epochs_->last_epoch() + 1, std::min<int64_t>(clock, INT32_MAX - 1)));
  if (auto err = epochs_->append(epoch, write_offset()))
    return err;
  return epoch;
}

caf::error message_store::adopt_terms(const std::vector<epoch_entry>& master) {
  std::lock_guard<std::mutex> guard{epoch_mtx_};
  if (!epochs_)
    return make_error(errc::service_not_available, "store is not open");
  auto end = write_offset();
  for (auto& e : master)
    if (e.start_offset <= end && e.epoch > epochs_->last_epoch())
      if (auto err = epochs_->append(e.epoch, e.start_offset))
        return err;
  return caf::none;
}

namespace {

std::string terms_text(const std::vector<epoch_entry>& xs) {
  if (xs.empty())
    return "none";
  std::string out;
  for (auto& e : xs) {
    if (!out.empty())
      out += ", ";
    out += std::to_string(e.epoch) + "@" + std::to_string(e.start_offset);
  }
  return out;
}

} // namespace

caf::expected<int64_t>
message_store::reconcile(const std::vector<epoch_entry>& master,
                         int64_t master_end) {
  auto mine = epochs();
  auto end = write_offset();
  auto why = [&] {
    return " (slave: log end " + std::to_string(end) + ", terms "
           + terms_text(mine) + "; master: log end "
           + std::to_string(master_end) + ", terms " + terms_text(master)
           + "); nothing is overwritten";
  };
  int64_t shared = end;
  if (mine.empty() || master.empty()) {
    // A log copied before terms were kept (or a master without any): the
    // log is taken as the master's as far as both reach.
    shared = std::min(end, master_end);
  } else {
    shared = consistent_point(mine, end, master, master_end);
    if (shared < 0)
      return make_error(errc::invalid_parameter,
                        "the slave shares no term with its master" + why());
  }
  if (shared >= end)
    return end;
  // The slave holds records its master does not. A term the two do not
  // share explains that: the slave's tail is of a term the master never
  // had (an old master's last records, or a term it began without hearing
  // of the new master), never part of the group's history. With the same
  // last term, the master lost records the slave has: refused.
  bool same_last_term = !master.empty() && !mine.empty()
                        && master.back() == mine.back();
  bool newer_term = !master.empty() && !same_last_term;
  if (!newer_term)
    return make_error(errc::invalid_parameter,
                      "the slave's log is ahead of its master's in the same "
                      "term"
                        + why());
  if (auto err = truncate_log(shared))
    return err;
  {
    std::lock_guard<std::mutex> guard{epoch_mtx_};
    if (auto err = epochs_->truncate(shared))
      return err;
  }
  RMQ_WARN("store", "cut the log at " << shared << ": bytes " << shared << ".."
                                      << end
                                      << " are of a term the master never "
                                         "had (slave terms "
                                      << terms_text(mine) << ", master terms "
                                      << terms_text(master) << ")");
  return shared;
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
