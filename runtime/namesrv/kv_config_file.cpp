#include "runtime/namesrv/kv_config_file.hpp"

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"

namespace rmq::kv_config_file {

namespace {

nlohmann::json to_doc(const kv_config_map& table) {
  nlohmann::json config_table = nlohmann::json::object();
  for (auto& [ns, kvs] : table)
    config_table[ns] = kvs;
  return nlohmann::json{{"configTable", std::move(config_table)}};
}

caf::expected<kv_config_map> from_doc(const nlohmann::json& doc) {
  auto corrupt = [](std::string why) {
    return make_error(errc::corrupt_data, std::move(why));
  };
  if (!doc.is_object())
    return corrupt("top level is not an object");
  kv_config_map result;
  auto i = doc.find("configTable");
  if (i == doc.end() || i->is_null())
    return result; // RocketMQ writes no table when it never had one
  if (!i->is_object())
    return corrupt("configTable is not an object");
  for (auto& [ns, kvs] : i->items()) {
    if (!kvs.is_object())
      return corrupt("namespace '" + ns + "' is not an object");
    auto& dst = result[ns];
    for (auto& [key, value] : kvs.items()) {
      if (!value.is_string())
        return corrupt("value of '" + ns + "'/'" + key + "' is no string");
      dst.emplace(key, value.get<std::string>());
    }
  }
  return result;
}

} // namespace

std::string to_text(const kv_config_map& table) {
  return to_doc(table).dump();
}

caf::expected<kv_config_map> from_text(const std::string& text) {
  // No exceptions: a parse failure yields a "discarded" value.
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded())
    return make_error(errc::corrupt_data, "not valid JSON");
  return from_doc(doc);
}

caf::expected<kv_config_map> load(const std::string& path) {
  auto doc = json_file::load(path);
  if (!doc)
    return std::move(doc.error());
  if (doc->is_null())
    return kv_config_map{}; // no file yet
  auto result = from_doc(*doc);
  if (!result)
    return make_error(errc::corrupt_data,
                      path + ": " + error_detail(result.error()));
  return result;
}

caf::error save(const std::string& path, const kv_config_map& table) {
  // RocketMQ (MixAll#string2File) writes a .tmp file, copies the old file
  // to .bak and then rewrites the target *in place*: a crash mid-write
  // leaves a truncated kvConfig.json. json_file::save renames a synced
  // temp file over it, so a reader sees either the old or the new table.
  return json_file::save(path, to_doc(table));
}

} // namespace rmq::kv_config_file
