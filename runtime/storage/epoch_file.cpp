#include "runtime/storage/epoch_file.hpp"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"

namespace rmq::storage {

namespace {

// Where the term at `i` ends: where the next begins, the last at `end`.
int64_t end_of(const std::vector<epoch_entry>& xs, size_t i, int64_t end) {
  return i + 1 < xs.size() ? xs[i + 1].start_offset : end;
}

} // namespace

epoch_file::epoch_file(std::string path) : path_(std::move(path)) {
  // nop
}

bool well_ordered(const std::vector<epoch_entry>& entries) {
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].epoch <= 0 || entries[i].start_offset < 0)
      return false;
    if (i > 0
        && (entries[i].epoch <= entries[i - 1].epoch
            || entries[i].start_offset < entries[i - 1].start_offset))
      return false;
  }
  return true;
}

caf::expected<epoch_file> epoch_file::load(std::string path) {
  epoch_file out{std::move(path)};
  auto doc = json_file::load(out.path_);
  if (!doc)
    return std::move(doc.error());
  if (doc->is_null())
    return out;
  auto bad = [&](const std::string& why) {
    return make_error(errc::corrupt_data, out.path_ + ": " + why);
  };
  auto terms = doc->find("epochs");
  if (!doc->is_object() || terms == doc->end() || !terms->is_array())
    return bad("no \"epochs\" list");
  for (auto& t : *terms) {
    if (!t.is_object()
        || !t.value("epoch", nlohmann::json{}).is_number_integer()
        || !t.value("startOffset", nlohmann::json{}).is_number_integer())
      return bad("an entry without epoch and startOffset");
    out.entries_.push_back(
      {t["epoch"].get<int32_t>(), t["startOffset"].get<int64_t>()});
  }
  if (!well_ordered(out.entries_))
    return bad("epochs must grow and start offsets never go back");
  return out;
}

caf::error epoch_file::save() const {
  auto terms = nlohmann::json::array();
  for (auto& e : entries_)
    terms.push_back({{"epoch", e.epoch}, {"startOffset", e.start_offset}});
  return json_file::save(path_, {{"epochs", std::move(terms)}});
}

caf::error epoch_file::append(int32_t epoch, int64_t start_offset) {
  auto next = entries_;
  next.push_back({epoch, start_offset});
  if (!well_ordered(next))
    return make_error(
      errc::invalid_parameter,
      "epoch " + std::to_string(epoch) + " at " + std::to_string(start_offset)
        + " does not follow epoch " + std::to_string(last_epoch()) + " at "
        + std::to_string(entries_.empty() ? 0 : entries_.back().start_offset));
  std::swap(entries_, next);
  if (auto err = save()) {
    std::swap(entries_, next);
    return err;
  }
  return caf::none;
}

caf::error epoch_file::truncate(int64_t offset) {
  auto kept = entries_;
  kept.erase(std::remove_if(kept.begin(), kept.end(),
                            [&](const epoch_entry& e) {
                              return e.start_offset > offset;
                            }),
             kept.end());
  if (kept.size() == entries_.size())
    return caf::none;
  std::swap(entries_, kept);
  if (auto err = save()) {
    std::swap(entries_, kept);
    return err;
  }
  return caf::none;
}

std::string epoch_file_path(const std::string& store_dir) {
  return store_dir + "/epochFile.json";
}

int64_t consistent_point(const std::vector<epoch_entry>& mine, int64_t my_end,
                         const std::vector<epoch_entry>& theirs,
                         int64_t their_end) {
  for (size_t i = mine.size(); i-- > 0;) {
    for (size_t j = 0; j < theirs.size(); ++j) {
      if (theirs[j].epoch != mine[i].epoch)
        continue;
      // One epoch begun at two offsets: not shared; an earlier one may be.
      if (theirs[j].start_offset != mine[i].start_offset)
        break;
      return std::min(end_of(mine, i, my_end), end_of(theirs, j, their_end));
    }
  }
  return -1;
}

} // namespace rmq::storage
