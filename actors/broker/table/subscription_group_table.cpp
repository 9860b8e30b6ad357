#include "actors/broker/table/subscription_group_table.hpp"

#include <chrono>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/validators.hpp"
#include "runtime/storage/message_store.hpp"

#include "actors/common/config_retry.hpp"
#include "actors/common/dump.hpp"

namespace rmq {

const char* subscription_group_table_state::name = "subscription_group_table";

namespace {

constexpr const char* component = "subscription_group_table";

subscription_group_config make_group(std::string name, bool broadcast) {
  subscription_group_config result;
  result.group_name = std::move(name);
  result.consume_broadcast_enable = broadcast;
  return result;
}

} // namespace

std::vector<subscription_group_config> system_subscription_groups() {
  // The first three keep the default broadcast setting (true) as RocketMQ
  // does; setting it again for the rest only mirrors init().
  return {
    make_group("TOOLS_CONSUMER", true),
    make_group("FILTERSRV_CONSUMER", true),
    make_group("SELF_TEST_C_GROUP", true),
    make_group("CID_ONS-HTTP-PROXY", true),
    make_group("CID_ONSAPI_PULL", true),
    make_group("CID_ONSAPI_PERMISSION", true),
    make_group("CID_ONSAPI_OWNER", true),
    make_group("CID_RMQ_SYS_TRANS", true),
  };
}

void subscription_group_table_state::load(
  subscription_group_table_options opts) {
  options = std::move(opts);
  for (auto& cfg : system_subscription_groups())
    groups.emplace(cfg.group_name, cfg);
  file = config_file{options.path, component};
  file.load(
    "groups restart from the system groups; auto-created ones come back "
    "with their clients' heartbeats, custom settings (retries, broadcast, "
    "consume-from-min) must be set again",
    [this](const nlohmann::json& doc) -> caf::error {
      if (doc.is_null())
        return {}; // first start
      std::map<std::string, subscription_group_config> loaded;
      data_version loaded_version = version;
      try {
        if (!doc.is_object())
          return make_error(errc::corrupt_data, "not a JSON object");
        auto table = doc.find("subscriptionGroupTable");
        if (table != doc.end() && !table->is_null()) {
          for (auto& [key, value] : table->items()) {
            auto cfg = value.get<subscription_group_config>();
            if (cfg.group_name.empty())
              cfg.group_name = key;
            loaded[cfg.group_name] = std::move(cfg);
          }
        }
        if (auto v = doc.find("dataVersion"); v != doc.end() && !v->is_null())
          loaded_version = v->get<data_version>();
      } catch (const nlohmann::json::exception& ex) {
        return make_error(errc::corrupt_data, ex.what());
      }
      for (auto& [name, cfg] : loaded)
        groups[name] = std::move(cfg);
      version = loaded_version;
      RMQ_INFO(component,
               "loaded " << loaded.size() << " groups from " << options.path);
      return {};
    });
}

caf::expected<subscription_group_config>
subscription_group_table_state::get(const std::string& group) const {
  if (auto i = groups.find(group); i != groups.end())
    return i->second;
  return make_error(errc::subscription_group_not_exist,
                    "subscription group not exist: " + group);
}

subscription_group_set subscription_group_table_state::list() const {
  subscription_group_set result;
  for (auto& [name, cfg] : groups)
    result.groups.push_back(cfg);
  result.version = version;
  return result;
}

caf::expected<data_version>
subscription_group_table_state::put(const subscription_group_config& cfg) {
  if (auto err = check_group(cfg.group_name))
    return err;
  if (cfg.retry_queue_nums < 0 || cfg.retry_max_times < -1)
    return make_error(errc::invalid_parameter,
                      "negative retry settings for " + cfg.group_name);
  if (file.blocked())
    return file.blocked();
  groups[cfg.group_name] = cfg;
  next_version();
  save();
  return version;
}

caf::expected<data_version>
subscription_group_table_state::erase(const std::string& group) {
  auto i = groups.find(group);
  if (i == groups.end())
    return version;
  if (file.blocked())
    return file.blocked();
  groups.erase(i);
  next_version();
  save();
  return version;
}

caf::expected<subscription_group_config>
subscription_group_table_state::find(const std::string& group) {
  if (auto i = groups.find(group); i != groups.end())
    return i->second;
  if (!options.auto_create)
    return make_error(errc::subscription_group_not_exist,
                      "subscription group not exist: " + group
                        + " (autoCreateSubscriptionGroup is off)");
  subscription_group_config cfg;
  cfg.group_name = group;
  auto res = put(cfg);
  if (!res)
    return std::move(res.error());
  ++auto_created;
  RMQ_INFO(component, "auto-created subscription group " << group);
  return cfg;
}

caf::error
subscription_group_table_state::sync(const subscription_group_set& master) {
  if (master.version == version)
    return {};
  if (file.blocked())
    return file.blocked();
  groups.clear();
  for (auto& cfg : master.groups)
    groups[cfg.group_name] = cfg;
  version = master.version;
  save();
  return {};
}

void subscription_group_table_state::next_version() {
  // RocketMQ DataVersion#nextVersion: a new timestamp, the counter + 1.
  version.timestamp = options.wall_clock.now_ms();
  ++version.counter;
}

void subscription_group_table_state::save() {
  // A failure is logged and kept by `file`; the actor saves again.
  static_cast<void>(file.save(to_document()));
}

bool subscription_group_table_state::save_again() {
  if (file.dirty())
    save();
  return file.dirty();
}

nlohmann::json subscription_group_table_state::to_document() const {
  auto table = nlohmann::json::object();
  for (auto& [name, cfg] : groups)
    table[name] = cfg;
  return {{"subscriptionGroupTable", std::move(table)},
          {"dataVersion", version}};
}

nlohmann::json subscription_group_table_state::dump_fields() const {
  auto names = nlohmann::json::array();
  for (auto& [name, cfg] : groups)
    names.push_back(name);
  nlohmann::json out{
    {"auto_create", options.auto_create},
    {"groups", std::move(names)},
    {"data_version", version},
    {"auto_created", auto_created},
  };
  file.add_dump_fields(out);
  return out;
}

subscription_group_table_actor::behavior_type
subscription_group_table(subscription_group_table_actor::stateful_pointer<
                           subscription_group_table_state>
                           self,
                         subscription_group_table_options opts) {
  self->state.load(std::move(opts));
  auto retry = [self] { arm_config_retry(self); };
  // Every state function reports errors as values; none of them throws.
  return {
    [=](save_atom) { on_config_retry(self); },
    [=](caf::get_atom,
        const std::string& group) -> caf::result<subscription_group_config> {
      return self->state.get(group);
    },
    [=](caf::get_atom) -> subscription_group_set { return self->state.list(); },
    [=](caf::put_atom,
        const subscription_group_config& cfg) -> caf::result<data_version> {
      auto res = self->state.put(cfg);
      retry();
      return res;
    },
    [=](caf::delete_atom,
        const std::string& group) -> caf::result<data_version> {
      auto res = self->state.erase(group);
      retry();
      return res;
    },
    [=](sync_atom, const subscription_group_set& master) {
      if (auto err = self->state.sync(master))
        RMQ_WARN(component, "taking the master's groups: " << describe(err));
      retry();
    },
    [=](const find_subscription_group_request& x)
      -> caf::result<subscription_group_config> {
      auto res = self->state.find(x.group);
      retry();
      return res;
    },
    dump_handler(self),
  };
}

} // namespace rmq
