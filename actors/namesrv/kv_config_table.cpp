#include "actors/namesrv/kv_config_table.hpp"

#include <filesystem>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include "messages/errors.hpp"
#include "runtime/log.hpp"
#include "runtime/validators.hpp"

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
    RMQ_INFO(component, "loaded " << config_table.size()
                                  << " namespaces from " << path);
    return;
  }
  auto err = std::move(loaded.error());
  if (err == errc::corrupt_data) {
    // Keep the evidence, start empty; the next save writes a fresh file.
    auto backup = path + ".corrupt";
    std::error_code ec;
    std::filesystem::rename(path, backup, ec);
    if (!ec) {
      RMQ_ERROR(component, describe(err) << "; moved it to " << backup
                                         << ", starting with an empty table");
      return;
    }
    err = make_error(errc::io_error, "cannot move corrupt " + path + " to "
                                       + backup + ": " + ec.message());
  }
  // Saving now would overwrite a file we could not load: serve from memory
  // and let every save fail until an operator fixes the file.
  RMQ_ERROR(component, describe(err) << "; saving is disabled");
  save_blocked = std::move(err);
}

caf::error kv_config_table_state::put(const put_kv_config_request& x) {
  if (auto err = check_entry(x.name_space, x.key))
    return err;
  if (auto err = check_utf8(x.value, "value"))
    return err; // the value may be empty, though
  ++puts;
  auto& kvs = config_table[x.name_space];
  auto i = kvs.find(x.key);
  if (i == kvs.end()) {
    kvs.emplace(x.key, x.value);
    dirty = true;
  } else if (i->second != x.value) {
    i->second = x.value;
    dirty = true;
  }
  // Unchanged but dirty still saves: a client retrying after io_error
  // gets ok only once its value is on disk.
  return save();
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
                                             + x.name_space
                                             + " Key: " + x.key);
}

caf::error kv_config_table_state::erase(const delete_kv_config_request& x) {
  auto i = config_table.find(x.name_space);
  if (i != config_table.end() && i->second.erase(x.key) > 0) {
    ++deletes;
    dirty = true;
    if (i->second.empty())
      config_table.erase(i);
  }
  return save();
}

caf::expected<kv_table> kv_config_table_state::list(
  const get_kv_list_by_namespace_request& x) const {
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

nlohmann::json kv_config_table_state::dump_fields() const {
  auto rows = nlohmann::json::array();
  for (auto& [ns, kvs] : config_table)
    for (auto& [key, value] : kvs)
      rows.push_back({{"namespace", ns}, {"key", key}, {"value", value}});
  return {
    {"path", path},
    {"config_table", std::move(rows)},
    {"dirty", dirty},
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
