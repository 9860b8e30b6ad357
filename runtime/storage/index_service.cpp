#include "runtime/storage/index_service.hpp"

#include <algorithm>

#include "runtime/message/log_format.hpp"

namespace rmq::storage {

index_service::index_service(const store_config& cfg)
  : cfg_(cfg), dir_(cfg.dir + "/index") {
  // nop
}

caf::error index_service::load() {
  if (auto err = make_dirs(dir_))
    return err;
  auto bases = list_offset_files(dir_);
  for (auto base : bases) {
    auto f = index_file::open(dir_ + "/" + offset_file_name(base),
                              cfg_.index_slots, cfg_.index_entries, base,
                              cfg_.faults);
    if (!f)
      return std::move(f.error());
    files_.push_back(std::move(*f));
  }
  if (!files_.empty() && files_.back()->index_count() > 1)
    last_indexed_ = files_.back()->end_phys_offset();
  return caf::none;
}

caf::error index_service::put_key(std::string_view topic, std::string_view key,
                                  int64_t phys_offset, int64_t store_ts) {
  key_buf_.assign(topic);
  key_buf_ += '#';
  key_buf_.append(key);
  if (files_.empty() || files_.back()->full()) {
    auto f = index_file::open(dir_ + "/" + offset_file_name(phys_offset),
                              cfg_.index_slots, cfg_.index_entries, phys_offset,
                              cfg_.faults);
    if (!f)
      return std::move(f.error());
    files_.push_back(std::move(*f));
  }
  files_.back()->put(key_buf_, phys_offset, store_ts);
  dirty_from_ = std::min(dirty_from_, files_.size() - 1);
  return caf::none;
}

bool index_service::has_room_for(const record_view& rec) const {
  // At most one entry per key and one for the unique id; the properties
  // cannot hold more keys than half their bytes, so a file with that much
  // room needs no look at them (the common case, on the dispatch path).
  uint32_t room = files_.empty() ? 0 : files_.back()->room();
  if (room >= rec.properties.size() / 2 + 2)
    return true;
  auto keys = find_property(rec.properties, property_keys);
  if (keys.empty() && find_property(rec.properties, property_uniq_key).empty())
    return true; // nothing to index
  return room >= 2
                   + static_cast<uint32_t>(
                     std::count(keys.begin(), keys.end(), ' '));
}

caf::error index_service::put(const record_view& rec, int64_t phys_offset) {
  if (phys_offset <= last_indexed_)
    return caf::none;
  // Rolled-back transactional messages are never looked up.
  if ((rec.sys_flag & sys_flag::transaction_mask)
      == sys_flag::transaction_rollback)
    return caf::none;
  last_indexed_ = phys_offset;
  auto uniq = find_property(rec.properties, property_uniq_key);
  if (!uniq.empty())
    if (auto err = put_key(rec.topic, uniq, phys_offset, rec.store_timestamp))
      return err;
  auto keys = find_property(rec.properties, property_keys);
  while (!keys.empty()) {
    auto sp = keys.find(' ');
    auto key = keys.substr(0, sp);
    if (!key.empty())
      if (auto err = put_key(rec.topic, key, phys_offset, rec.store_timestamp))
        return err;
    if (sp == std::string_view::npos)
      break;
    keys.remove_prefix(sp + 1);
  }
  return caf::none;
}

std::vector<int64_t> index_service::query(const std::string& topic,
                                          const std::string& key, int64_t begin,
                                          int64_t end, size_t max) const {
  std::vector<int64_t> result;
  auto full_key = topic + '#' + key;
  for (auto i = files_.rbegin(); i != files_.rend(); ++i) {
    if ((*i)->index_count() <= 1 || (*i)->end_timestamp() < begin
        || (*i)->begin_timestamp() > end)
      continue;
    (*i)->query(full_key, begin, end, max, result);
    if (result.size() >= max)
      break;
  }
  return result;
}

void index_service::delete_below(int64_t phys_min) {
  while (files_.size() > 1 && files_.front()->end_phys_offset() < phys_min) {
    files_.front()->remove();
    files_.erase(files_.begin());
    if (dirty_from_ != SIZE_MAX && dirty_from_ > 0)
      --dirty_from_;
  }
}

void index_service::take_unsynced(std::vector<mapped_file_ptr>& out) {
  for (auto i = dirty_from_; i < files_.size(); ++i)
    out.push_back(files_[i]->file());
  dirty_from_ = SIZE_MAX;
}

std::string index_service::check(int64_t log_extent) const {
  for (auto& f : files_)
    if (auto why = f->check(log_extent); !why.empty())
      return f->file()->path() + ": " + why;
  return {};
}

void index_service::destroy() {
  for (auto& f : files_)
    f->remove();
  files_.clear();
  last_indexed_ = -1;
  dirty_from_ = SIZE_MAX;
}

} // namespace rmq::storage
