#include "runtime/client/local_offset_store.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "runtime/process/home_dir.hpp"

namespace rmq {

std::string default_local_offset_dir() {
  return home_dir() + "/.rocketmq_offsets";
}

std::string local_offset_path(const std::string& dir,
                              const std::string& client_id,
                              const std::string& group) {
  return dir + "/" + client_id + "/" + group + "/offsets.json";
}

namespace local_offset_file {

nlohmann::json to_json(const local_offset_map& offsets) {
  auto table = nlohmann::json::array();
  for (auto& [q, offset] : offsets)
    table.push_back({{"topic", q.topic},
                     {"broker_name", q.broker_name},
                     {"queue_id", q.queue_id},
                     {"offset", offset}});
  return {{"offset_table", std::move(table)}};
}

caf::expected<local_offset_map> from_json(const nlohmann::json& doc) {
  auto bad = [](const std::string& what) {
    return make_error(errc::corrupt_data, "offsets file: " + what);
  };
  if (!doc.is_object() || !doc.contains("offset_table")
      || !doc["offset_table"].is_array())
    return bad("no offset_table array");
  local_offset_map result;
  for (auto& e : doc["offset_table"]) {
    if (!e.is_object() || !e.contains("topic") || !e["topic"].is_string()
        || !e.contains("broker_name") || !e["broker_name"].is_string()
        || !e.contains("queue_id") || !e["queue_id"].is_number_integer()
        || !e.contains("offset") || !e["offset"].is_number_integer())
      return bad("malformed entry " + e.dump());
    message_queue q{e["topic"].get<std::string>(),
                    e["broker_name"].get<std::string>(),
                    e["queue_id"].get<int32_t>()};
    result[q] = e["offset"].get<int64_t>();
  }
  return result;
}

namespace {

/// The offsets in one file: nullopt when it does not exist.
caf::expected<std::optional<local_offset_map>> read(const std::string& path) {
  auto doc = json_file::load(path);
  if (!doc)
    return std::move(doc.error());
  if (doc->is_null())
    return std::optional<local_offset_map>{};
  auto offsets = from_json(*doc);
  if (!offsets)
    return make_error(errc::corrupt_data,
                      path + ": " + error_detail(offsets.error()));
  return std::optional<local_offset_map>{std::move(*offsets)};
}

} // namespace

caf::expected<loaded> load(const std::string& path) {
  loaded result;
  auto main = read(path);
  if (main && *main) {
    result.offsets = std::move(**main);
    result.from = source::main;
    return result;
  }
  if (!main) {
    result.main_error = describe(main.error());
    // An unreadable file stays where it is; a damaged one goes aside, so
    // that the next save cannot replace the evidence and the .bak with it.
    if (main.error() == errc::corrupt_data)
      if (auto aside = json_file::keep_aside(path); !aside)
        return std::move(aside.error());
  }
  auto bak = read(path + ".bak");
  if (!bak)
    return std::move(bak.error());
  if (*bak) {
    result.offsets = std::move(**bak);
    result.from = source::bak;
  }
  return result;
}

caf::error save(const std::string& path, const local_offset_map& offsets) {
  // The file being replaced becomes the .bak, as long as it is one we can
  // read back: a damaged file must not overwrite the last good copy.
  if (auto old = read(path); old && *old)
    if (auto err = json_file::save(path + ".bak", to_json(**old)))
      return err;
  return json_file::save(path, to_json(offsets));
}

} // namespace local_offset_file

caf::error local_offset_store::load() {
  auto res = local_offset_file::load(path_);
  if (!res)
    return std::move(res.error());
  table_ = std::move(res->offsets);
  return {};
}

void local_offset_store::update(const message_queue& queue, int64_t offset,
                                bool increase_only) {
  auto [i, added] = table_.emplace(queue, offset);
  if (!added && (!increase_only || offset > i->second))
    i->second = offset;
}

std::optional<int64_t>
local_offset_store::read(const message_queue& queue) const {
  auto i = table_.find(queue);
  if (i == table_.end())
    return std::nullopt;
  return i->second;
}

caf::expected<std::optional<int64_t>>
local_offset_store::read_from_file(const message_queue& queue) {
  auto res = local_offset_file::load(path_);
  if (!res)
    return std::move(res.error());
  auto i = res->offsets.find(queue);
  if (i == res->offsets.end())
    return std::optional<int64_t>{};
  update(queue, i->second);
  return std::optional<int64_t>{i->second};
}

void local_offset_store::remove(const message_queue& queue) {
  table_.erase(queue);
}

caf::error
local_offset_store::persist(const std::vector<message_queue>& queues) {
  if (queues.empty())
    return {};
  auto res = local_offset_file::load(path_);
  if (!res)
    return std::move(res.error());
  auto merged = std::move(res->offsets);
  for (auto& q : queues)
    if (auto i = table_.find(q); i != table_.end())
      merged[q] = i->second;
  return local_offset_file::save(path_, merged);
}

local_offset_map local_offset_store::offsets(const std::string& topic) const {
  if (topic.empty())
    return table_;
  local_offset_map result;
  for (auto& [q, offset] : table_)
    if (q.topic == topic)
      result.emplace(q, offset);
  return result;
}

} // namespace rmq
