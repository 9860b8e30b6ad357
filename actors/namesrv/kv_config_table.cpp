#include "actors/namesrv/kv_config_table.hpp"

#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/validators.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* kv_config_table_state::name = "kv_config_table";

namespace {

constexpr const char* component = "kv_config_table";

// nlohmann::json throws when it dumps invalid UTF-8: such a string would
// break every later save and dump, so it never enters the table.
caf::error check_utf8(const std::string& str, const char* what) {
  try {
    static_cast<void>(nlohmann::json(str).dump());
    return {};
  } catch (const nlohmann::json::exception&) {
    return make_error(errc::invalid_parameter,
                      std::string{what} + " is not valid UTF-8");
  }
}

caf::error check_entry(const std::string& ns, const std::string& key) {
  if (auto err = check_kv_name(ns, "namespace"))
    return err;
  if (auto err = check_kv_name(key, "key"))
    return err;
  if (auto err = check_utf8(ns, "namespace"))
    return err;
  return check_utf8(key, "key");
}

} // namespace

void kv_config_table_state::load(std::string file_path) {
  path = std::move(file_path);
  if (path.empty())
    return;
  auto loaded = kv_config_file::load(path);
  if (loaded) {
    config_table = std::move(*loaded);
    RMQ_INFO(component,
             "loaded " << config_table.size() << " namespaces from " << path);
    return;
  }
  auto err = std::move(loaded.error());
  if (err == errc::corrupt_data) {
    // Keep the evidence under a name no earlier start used, start empty;
    // the next save writes a fresh file.
    std::error_code ec;
    std::string backup;
    for (int n = 1; n <= 10'000 && backup.empty(); ++n) {
      auto name = path + ".corrupt." + std::to_string(n);
      if (!std::filesystem::exists(name, ec) && !ec)
        backup = std::move(name);
    }
    if (backup.empty() && !ec)
      ec = std::make_error_code(std::errc::file_exists);
    if (!ec)
      std::filesystem::rename(path, backup, ec);
    if (!ec) {
      RMQ_ERROR(component, describe(err) << "; moved it to " << backup
                                         << ", starting with an empty table");
      return;
    }
    err = make_error(errc::io_error,
                     "cannot move corrupt " + path + " aside: " + ec.message());
  }
  // Saving now would overwrite a file we could not load: serve from memory
  // and let every save fail until an operator fixes the file.
  RMQ_ERROR(component, describe(err) << "; saving is disabled");
  save_blocked = std::move(err);
}

caf::error kv_config_table_state::put(const put_kv_config_request& x) {
  if (auto err = check_entry(x.name_space, x.key))
    return err;
  if (auto err = check_kv_value(x.value))
    return err;
  if (auto err = check_utf8(x.value, "value"))
    return err; // the value may be empty, though
  std::optional<std::string> old;
  if (auto i = config_table.find(x.name_space); i != config_table.end())
    if (auto j = i->second.find(x.key); j != i->second.end())
      old = j->second;
  if (old && *old == x.value) {
    ++puts;
    return {}; // RocketMQ rewrites the file anyway; it holds this already
  }
  auto old_size = old ? x.name_space.size() + x.key.size() + old->size() : 0;
  auto new_size = x.name_space.size() + x.key.size() + x.value.size();
  auto total = table_size() - old_size + new_size;
  if (new_size > old_size && total > max_table_size)
    return make_error(errc::invalid_parameter,
                      "the KV config would have " + std::to_string(total)
                        + " bytes, more than the "
                        + std::to_string(max_table_size) + " allowed");
  ++puts;
  config_table[x.name_space][x.key] = x.value;
  dirty = true;
  if (auto err = save()) {
    // Roll back: what a read answers is what is on disk.
    auto& kvs = config_table[x.name_space];
    if (old) {
      kvs[x.key] = std::move(*old);
    } else {
      kvs.erase(x.key);
      if (kvs.empty())
        config_table.erase(x.name_space);
    }
    dirty = false;
    return err;
  }
  return {};
}

caf::expected<std::string>
kv_config_table_state::get(const get_kv_config_request& x) const {
  auto i = config_table.find(x.name_space);
  if (i != config_table.end()) {
    auto j = i->second.find(x.key);
    if (j != i->second.end())
      return j->second;
  }
  return make_error(errc::query_not_found, "No config item, Namespace: "
                                             + x.name_space + " Key: " + x.key);
}

caf::error kv_config_table_state::erase(const delete_kv_config_request& x) {
  auto i = config_table.find(x.name_space);
  if (i == config_table.end())
    return {};
  auto j = i->second.find(x.key);
  if (j == i->second.end())
    return {};
  auto old = std::move(j->second);
  i->second.erase(j);
  if (i->second.empty())
    config_table.erase(i);
  dirty = true;
  if (auto err = save()) {
    config_table[x.name_space][x.key] = std::move(old); // roll back
    dirty = false;
    return err;
  }
  ++deletes;
  return {};
}

caf::expected<kv_table>
kv_config_table_state::list(const get_kv_list_by_namespace_request& x) const {
  auto i = config_table.find(x.name_space);
  if (i == config_table.end())
    return make_error(errc::query_not_found,
                      "No config item, Namespace: " + x.name_space);
  return kv_table{i->second};
}

caf::error kv_config_table_state::save(bool force) {
  if (path.empty() || (!dirty && !force))
    return {};
  auto err = save_blocked ? save_blocked
                          : kv_config_file::save(path, config_table);
  if (err) {
    ++save_errors;
    RMQ_ERROR(component, "saving the KV config failed: " << describe(err));
    return err;
  }
  ++saves;
  dirty = false;
  return {};
}

size_t kv_config_table_state::table_size() const {
  size_t result = 0;
  for (auto& [ns, kvs] : config_table)
    for (auto& [key, value] : kvs)
      result += ns.size() + key.size() + value.size();
  return result;
}

nlohmann::json kv_config_table_state::dump_fields() const {
  auto rows = nlohmann::json::array();
  for (auto& [ns, kvs] : config_table)
    for (auto& [key, value] : kvs)
      rows.push_back({{"namespace", ns}, {"key", key}, {"value", value}});
  return {
    {"path", path},
    {"config_table", std::move(rows)},
    {"dirty", dirty},
    {"table_size", table_size()},
    {"max_table_size", max_table_size},
    {"puts", puts},
    {"deletes", deletes},
    {"saves", saves},
    {"save_errors", save_errors},
  };
}

kv_config_table_actor::behavior_type kv_config_table(
  kv_config_table_actor::stateful_pointer<kv_config_table_state> self,
  std::string path) {
  self->state.load(std::move(path));
  // Every state function reports errors as values; none of them throws.
  return {
    [=](const put_kv_config_request& x) -> caf::result<caf::ok_atom> {
      if (auto err = self->state.put(x))
        return err;
      return caf::ok_atom::value;
    },
    [=](const get_kv_config_request& x) -> caf::result<std::string> {
      return self->state.get(x);
    },
    [=](const delete_kv_config_request& x) -> caf::result<caf::ok_atom> {
      if (auto err = self->state.erase(x))
        return err;
      return caf::ok_atom::value;
    },
    [=](const get_kv_list_by_namespace_request& x) -> caf::result<kv_table> {
      return self->state.list(x);
    },
    [=](save_atom) -> caf::result<caf::ok_atom> {
      if (auto err = self->state.save(true))
        return err;
      return caf::ok_atom::value;
    },
    dump_handler(self),
  };
}

} // namespace rmq
