// The commit log's side of replication: what a master reads for its slave
// and how a slave appends it (commit_log.hpp, "replication").
#include <cstring>
#include <utility>

#include "messages/common/errors.hpp"
#include "runtime/message/byte_coding.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/storage/commit_log.hpp"

namespace rmq::storage {

namespace {

std::string at_offset(int64_t offset) {
  return " at offset " + std::to_string(offset);
}

} // namespace

caf::expected<std::string> commit_log::read_chunk(int64_t from,
                                                  size_t max_bytes) const {
  auto end = write_offset();
  if (from == end)
    return std::string{};
  if (from > end || from < min_offset())
    return make_error(errc::invalid_parameter,
                      "the log holds " + std::to_string(min_offset()) + ".."
                        + std::to_string(end) + ", not "
                        + std::to_string(from));
  auto seg = find(from);
  if (!seg)
    return make_error(errc::corrupt_data, "no segment holds" + at_offset(from));
  auto base = seg->base_offset();
  auto seg_size = seg->size();
  auto pos = static_cast<size_t>(from - base);
  // The writer may be inside this segment: its bytes stop at `end`.
  auto stop = static_cast<size_t>(
    std::min<int64_t>(end - base, static_cast<int64_t>(seg_size)));
  auto data = seg->data();
  size_t taken = 0;
  while (pos + taken < stop) {
    auto here = pos + taken;
    record_view rec;
    // The slave checks each body CRC: no need to here.
    auto status = decode_record(data + here, seg_size - here, rec, false);
    if (status == decode_status::blank) {
      if (taken > 0)
        break; // the blank goes first in the next chunk
      taken = seg_size - here;
      break;
    }
    if (status != decode_status::ok
        || rec.phys_offset != base + static_cast<int64_t>(here))
      return make_error(errc::corrupt_data,
                        "damaged record" + at_offset(base + here) + ": "
                          + describe_damage(data + here, seg_size - here,
                                            base + here));
    auto size = static_cast<size_t>(rec.total_size);
    if (taken > 0 && taken + size > max_bytes)
      break;
    taken += size;
    if (taken >= max_bytes)
      break;
  }
  return std::string{data + pos, taken};
}

caf::error commit_log::append_chunk(int64_t from, std::string_view bytes) {
  std::lock_guard<std::mutex> guard{warm_mtx_};
  auto offset = write_offset_.load(std::memory_order_relaxed);
  if (from != offset)
    return make_error(errc::invalid_parameter,
                      "the chunk starts at " + std::to_string(from)
                        + ", the log ends at " + std::to_string(offset));
  auto seg_size = static_cast<int64_t>(cfg_.segment_size);
  // Check everything before writing anything.
  size_t done = 0;
  while (done < bytes.size()) {
    auto at = offset + static_cast<int64_t>(done);
    auto avail = static_cast<size_t>(seg_size - at % seg_size);
    auto left = bytes.size() - done;
    record_view rec;
    auto p = bytes.data() + done;
    auto status = decode_record(p, std::min(avail, left), rec, true);
    if (status == decode_status::blank) {
      if (get_be32(p) != avail || left < avail)
        return make_error(errc::corrupt_data,
                          "a blank marker" + at_offset(at)
                            + " that does not end its segment");
      done += avail;
      continue;
    }
    if (status != decode_status::ok)
      return make_error(errc::corrupt_data,
                        "damaged record" + at_offset(at) + ": "
                          + describe_damage(p, std::min(avail, left), at));
    if (rec.phys_offset != at)
      return make_error(errc::corrupt_data,
                        "the record" + at_offset(at) + " names offset "
                          + std::to_string(rec.phys_offset)
                          + ": it is not from this log's master");
    done += static_cast<size_t>(rec.total_size);
  }
  done = 0;
  while (done < bytes.size()) {
    if (current_ == nullptr
        || offset >= current_->base_offset()
                       + static_cast<int64_t>(current_->size()))
      if (auto err = roll(offset))
        return err;
    auto pos = static_cast<size_t>(offset - current_->base_offset());
    auto n = std::min(current_->size() - pos, bytes.size() - done);
    std::memcpy(current_->data() + pos, bytes.data() + done, n);
    done += n;
    offset += static_cast<int64_t>(n);
    write_offset_.store(offset, std::memory_order_release);
  }
  return caf::none;
}

caf::error commit_log::truncate(int64_t offset) {
  std::lock_guard<std::mutex> warm{warm_mtx_};
  auto end = write_offset();
  if (offset == end)
    return caf::none;
  if (offset > end || offset < min_offset())
    return make_error(errc::invalid_parameter,
                      "cannot cut the log at " + std::to_string(offset)
                        + ": it holds " + std::to_string(min_offset()) + ".."
                        + std::to_string(end));
  mapped_file_ptr seg;
  size_t avail = 0;
  auto p = at(offset, seg, avail);
  record_view rec;
  auto status = p ? decode_record(p, avail, rec, false)
                  : decode_status::corrupt;
  if (status != decode_status::blank
      && (status != decode_status::ok || rec.phys_offset != offset))
    return make_error(errc::invalid_parameter, "cannot cut the log at "
                                                 + std::to_string(offset)
                                                 + ": no record begins there");
  auto pos = static_cast<size_t>(offset - seg->base_offset());
  if (auto err = seg->write_zeros(pos, seg->size() - pos))
    return err;
  if (auto err = seg->sync_zeros())
    return err;
  std::vector<mapped_file_ptr> dropped;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    while (segments_.back()->base_offset() > offset) {
      dropped.push_back(segments_.back());
      segments_.pop_back();
    }
    current_ = segments_.back();
  }
  for (auto& x : dropped)
    x->remove();
  write_offset_.store(offset, std::memory_order_release);
  if (flushed_offset_.load() > offset)
    flushed_offset_.store(offset);
  // Zeros ahead of the writer are the warm actor's to vouch for again.
  warm_end_.store(offset, std::memory_order_release);
  return caf::none;
}

} // namespace rmq::storage
