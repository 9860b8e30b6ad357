// Topic removal (queue service part of message_store): RocketMQ
// DefaultMessageStore#deleteTopics, which DELETE_TOPIC_IN_BROKER runs
// after the topic config is gone. Recovery re-dispatches at least the
// last commit-log segment, so a deleted topic's records would build its
// queues again: a tombstone per topic (the commit-log offset below which
// its records are skipped) is kept in `deleted_topics.json` until
// retention has removed those records.
#include "runtime/storage/message_store.hpp"

#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "runtime/common/log.hpp"

namespace rmq::storage {

namespace {

std::string tombstones_path(const store_config& cfg) {
  return cfg.dir + "/deleted_topics.json";
}

} // namespace

caf::error message_store::save_tombstones() {
  nlohmann::json topics = nlohmann::json::object();
  for (auto& [topic, below] : tombstones_)
    topics[topic] = below;
  return json_file::save(tombstones_path(cfg_), {{"topics", topics}});
}

caf::error message_store::load_tombstones() {
  auto doc = json_file::load(tombstones_path(cfg_));
  if (!doc)
    return std::move(doc.error());
  if (doc->is_null())
    return caf::none;
  auto topics = doc->find("topics");
  if (!doc->is_object() || topics == doc->end() || !topics->is_object())
    return make_error(errc::corrupt_data,
                      tombstones_path(cfg_) + ": no \"topics\" object");
  for (auto& [topic, below] : topics->items()) {
    if (!below.is_number_integer())
      return make_error(errc::corrupt_data,
                        tombstones_path(cfg_) + ": bad offset of " + topic);
    tombstones_[topic] = below.get<int64_t>();
  }
  // A crash between the tombstone and the removal left queue files that
  // hold only deleted records.
  for (auto& [topic, below] : tombstones_) {
    auto i = queues_.find(topic);
    if (i == queues_.end())
      continue;
    int64_t end = 0;
    for (auto& cq : i->second)
      if (cq)
        end = std::max(end, cq->max_phys_end());
    if (end <= below) {
      queues_.erase(i);
      std::error_code ec;
      std::filesystem::remove_all(cfg_.dir + "/consumequeue/" + topic, ec);
    }
  }
  return caf::none;
}

bool message_store::deleted_record(std::string_view topic, int64_t phys) const {
  if (tombstones_.empty())
    return false;
  auto i = tombstones_.find(topic);
  return i != tombstones_.end() && phys < i->second;
}

void message_store::prune_tombstones(int64_t log_min) {
  bool changed = false;
  for (auto i = tombstones_.begin(); i != tombstones_.end();)
    if (i->second <= log_min) {
      i = tombstones_.erase(i);
      changed = true;
    } else {
      ++i;
    }
  if (!changed)
    return;
  if (auto err = save_tombstones())
    RMQ_WARN("store", "cannot rewrite the deleted topics: " << describe(err));
}

caf::expected<size_t> message_store::delete_topic(std::string_view topic) {
  // Writer first, as close() does: no record of the topic is appended
  // while its queues go, and the next one starts a queue at offset 0.
  std::lock_guard<std::mutex> w{writer_mtx_};
  std::lock_guard<std::mutex> r{reader_mtx_};
  if (closed_)
    return make_error(errc::system_error, "store closed");
  // Its records written so far are skipped by every dispatch from now on,
  // this one and a restart's.
  auto previous = tombstones_.find(topic);
  auto old = previous == tombstones_.end() ? int64_t{-1} : previous->second;
  tombstones_[std::string{topic}] = log_.write_offset();
  if (auto err = save_tombstones()) {
    if (old < 0)
      tombstones_.erase(std::string{topic});
    else
      tombstones_[std::string{topic}] = old;
    return err;
  }
  if (auto err = dispatch_locked(log_.write_offset()))
    return err;
  size_t removed = 0;
  if (auto i = queues_.find(topic); i != queues_.end()) {
    for (auto& cq : i->second)
      removed += cq ? 1 : 0;
    queues_.erase(i); // unmaps the files
  }
  if (auto i = next_offsets_.find(topic); i != next_offsets_.end())
    next_offsets_.erase(i);
  std::error_code ec;
  auto dir = cfg_.dir + "/consumequeue/" + std::string{topic};
  std::filesystem::remove_all(dir, ec);
  if (ec)
    return make_error(errc::io_error,
                      "cannot remove " + dir + ": " + ec.message());
  RMQ_INFO("store",
           "deleted the " << removed << " consume queues of topic " << topic);
  return removed;
}

} // namespace rmq::storage
