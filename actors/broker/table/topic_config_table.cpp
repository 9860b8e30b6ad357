#include "actors/broker/table/topic_config_table.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/send.hpp"
#include "caf/system_messages.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/validators.hpp"
#include "runtime/storage/message_store.hpp"

#include "actors/common/config_retry.hpp"
#include "actors/common/dump.hpp"

namespace rmq {

const char* topic_config_table_state::name = "topic_config_table";

namespace {

constexpr const char* component = "topic_config_table";

bool starts_with(const std::string& str, const char* prefix) {
  return str.rfind(prefix, 0) == 0;
}

caf::error invalid(std::string text) {
  return make_error(errc::invalid_parameter, std::move(text));
}

// -- the file: RocketMQ's topics.json shape ---------------------------------

const char* filter_type_name(int32_t x) {
  return x == 1 ? "MULTI_TAG" : "SINGLE_TAG";
}

nlohmann::json to_file_json(const topic_config& x) {
  return {
    {"topicName", x.topic_name},
    {"readQueueNums", x.read_queue_nums},
    {"writeQueueNums", x.write_queue_nums},
    {"perm", x.perm},
    {"topicFilterType", filter_type_name(x.topic_filter_type)},
    {"topicSysFlag", x.topic_sys_flag},
    {"order", x.order},
    {"attributes", nlohmann::json::object()},
  };
}

nlohmann::json to_file_json(const std::map<std::string, topic_config>& topics,
                            const data_version& version) {
  auto table = nlohmann::json::object();
  for (auto& [name, cfg] : topics)
    table[name] = to_file_json(cfg);
  return {
    {"topicConfigTable", std::move(table)},
    {"dataVersion",
     {{"stateVersion", version.state_version},
      {"timestamp", version.timestamp},
      {"counter", version.counter}}},
  };
}

// Reads an integer field if present; throws nlohmann's type_error if it is
// something else (the caller turns that into corrupt_data).
template <class T>
void read_int(const nlohmann::json& obj, const char* key, T& out) {
  if (auto i = obj.find(key); i != obj.end() && !i->is_null()) {
    if (!i->is_number_integer())
      throw std::invalid_argument{std::string{key} + " is not an integer"};
    out = i->get<T>();
  }
}

struct file_content {
  std::map<std::string, topic_config> topics;
  std::optional<data_version> version;
};

caf::expected<file_content> from_file_json(const nlohmann::json& doc) {
  auto corrupt = [](std::string why) {
    return make_error(errc::corrupt_data, std::move(why));
  };
  if (!doc.is_object())
    return corrupt("top level is not an object");
  file_content result;
  try {
    if (auto i = doc.find("topicConfigTable");
        i != doc.end() && !i->is_null()) {
      if (!i->is_object())
        return corrupt("topicConfigTable is not an object");
      for (auto& [name, obj] : i->items()) {
        if (!obj.is_object())
          return corrupt("topic '" + name + "' is not an object");
        topic_config cfg;
        cfg.topic_name = name;
        if (auto j = obj.find("topicName"); j != obj.end() && !j->is_null()) {
          if (!j->is_string() || j->get<std::string>() != name)
            return corrupt("topic '" + name + "' has another topicName");
        }
        read_int(obj, "readQueueNums", cfg.read_queue_nums);
        read_int(obj, "writeQueueNums", cfg.write_queue_nums);
        read_int(obj, "perm", cfg.perm);
        read_int(obj, "topicSysFlag", cfg.topic_sys_flag);
        if (auto j = obj.find("topicFilterType");
            j != obj.end() && !j->is_null()) {
          if (*j == "SINGLE_TAG")
            cfg.topic_filter_type = 0;
          else if (*j == "MULTI_TAG")
            cfg.topic_filter_type = 1;
          else
            return corrupt("topic '" + name + "' has an unknown filter type");
        }
        if (auto j = obj.find("order"); j != obj.end() && !j->is_null()) {
          if (!j->is_boolean())
            return corrupt("order of topic '" + name + "' is no boolean");
          cfg.order = j->get<bool>();
        }
        result.topics.emplace(name, std::move(cfg));
      }
    }
    if (auto i = doc.find("dataVersion"); i != doc.end() && !i->is_null()) {
      if (!i->is_object())
        return corrupt("dataVersion is not an object");
      data_version v;
      read_int(*i, "stateVersion", v.state_version);
      read_int(*i, "timestamp", v.timestamp);
      read_int(*i, "counter", v.counter);
      result.version = v;
    }
  } catch (const std::exception& ex) {
    return corrupt(ex.what());
  }
  return result;
}

topic_config make_topic(std::string name, int32_t queues,
                        int32_t perm_bits = perm::read_write) {
  topic_config cfg;
  cfg.topic_name = std::move(name);
  cfg.read_queue_nums = queues;
  cfg.write_queue_nums = queues;
  cfg.perm = perm_bits;
  return cfg;
}

// Checks the queue counts, perm and filter type a client asks for.
caf::error check_topic_fields(const topic_config& cfg) {
  auto check_queues = [](int32_t n, const char* what) -> caf::error {
    if (n < 1 || n > max_topic_queue_nums)
      return invalid(std::string{what} + " " + std::to_string(n)
                     + " is not in 1.." + std::to_string(max_topic_queue_nums));
    return {};
  };
  if (auto err = check_queues(cfg.read_queue_nums, "readQueueNums"))
    return err;
  if (auto err = check_queues(cfg.write_queue_nums, "writeQueueNums"))
    return err;
  if (!perm::is_valid(cfg.perm))
    return invalid("perm " + std::to_string(cfg.perm) + " is not in 0..7");
  if (cfg.topic_filter_type != 0 && cfg.topic_filter_type != 1)
    return invalid("topicFilterType " + std::to_string(cfg.topic_filter_type)
                   + " is neither 0 (SINGLE_TAG) nor 1 (MULTI_TAG)");
  return {};
}

} // namespace

// -- free functions -----------------------------------------------------------

std::string topics_json_path(const std::string& store_root) {
  return store_root + "/config/topics.json";
}

bool is_not_allowed_send_topic(const std::string& topic) {
  using namespace system_topics;
  for (auto name : {schedule, trans_half, trans_op_half, trans_check_max_time,
                    self_test, offset_moved_event})
    if (topic == name)
      return true;
  return false;
}

caf::error check_broker_topic(const std::string& topic) {
  if (starts_with(topic, system_topics::retry_prefix)
      || starts_with(topic, system_topics::dlq_prefix)) {
    if (topic.size() > max_retry_or_dlq_topic_length)
      return invalid("The specified topic is DLQ or Retry topic: " + topic
                     + ", and it's longer than topic max length: "
                     + std::to_string(max_retry_or_dlq_topic_length));
    // The characters are checked like any topic's, in pieces that
    // check_topic's length limit accepts.
    for (size_t pos = 0; pos < topic.size(); pos += max_topic_length)
      if (check_topic(topic.substr(pos, max_topic_length)))
        return invalid("The specified topic: " + topic
                       + ", contains illegal characters, allowing only "
                         "^[%|a-zA-Z0-9_-]+$");
    return {};
  }
  return check_topic(topic);
}

// -- state --------------------------------------------------------------------

void topic_config_table_state::init(topic_config_table_options opts) {
  options = std::move(opts);
  using namespace system_topics;
  auto& o = options;
  auto add = [this](topic_config cfg) {
    reserved_topics.push_back(cfg.topic_name);
    topics[cfg.topic_name] = std::move(cfg);
  };
  // What TopicConfigManager#init creates, in its order.
  add(make_topic(self_test, 1));
  if (o.auto_create_topic_enable)
    add(make_topic(auto_create, o.default_topic_queue_nums,
                   perm::inherit | perm::read_write));
  add(make_topic(benchmark, 1024));
  if (!o.cluster_name.empty()) {
    auto cluster_perm = perm::inherit;
    if (o.cluster_topic_enable)
      cluster_perm |= perm::read_write;
    add(make_topic(o.cluster_name, 16, cluster_perm));
  }
  if (!o.broker_name.empty()) {
    auto broker_perm = perm::inherit;
    if (o.broker_topic_enable)
      broker_perm |= perm::read_write;
    add(make_topic(o.broker_name, 1, broker_perm));
  }
  add(make_topic(offset_moved_event, 1));
  add(make_topic(schedule, schedule_queue_nums));
  if (o.trace_topic_enable && !o.trace_topic_name.empty())
    add(make_topic(o.trace_topic_name, 1));
  add(make_topic(o.cluster_name + "_REPLY_TOPIC", 1));
  add(make_topic(std::string{prefix} + "REVIVE_LOG_" + o.cluster_name,
                 o.revive_queue_num));
  add(make_topic(std::string{prefix} + "SYNC_BROKER_MEMBER_" + o.broker_name, 1,
                 perm::inherit));
  add(make_topic(trans_half, 1));
  add(make_topic(trans_op_half, 1));
  // RocketMQ creates it at the first discard (TCMT_QUEUE_NUMS 1); here it
  // is there from the start, so its messages are readable by topic at any
  // time (docs/transactions.md).
  add(make_topic(trans_check_max_time, 1));
  if (o.timer_wheel_enable)
    add(make_topic(wheel_timer, 1));
  // RocketMQ's DataVersion starts at "now", counter 0; the file overrides.
  version.timestamp = options.wall_clock.now_ms();
  load();
}

void topic_config_table_state::load() {
  file = config_file{options.config_path, component};
  bool rebuild = false;
  file.load(
    "topics restart from the defaults and the consume queues in "
    "the store (read/write, their queue counts); other settings "
    "must be set again",
    [&](const nlohmann::json& doc) -> caf::error {
      if (doc.is_null()) {
        // No file, or a damaged one kept aside: what the store
        // holds is rebuilt (at a first start it holds nothing).
        rebuild = true;
        return {};
      }
      auto content = from_file_json(doc);
      if (!content) // valid JSON of the wrong shape
        return make_error(errc::corrupt_data, error_detail(content.error()));
      rebuild = false;
      for (auto& [name, cfg] : content->topics)
        topics[name] = std::move(cfg);
      if (content->version)
        version = *content->version;
      RMQ_INFO(component, "loaded " << content->topics.size() << " topics from "
                                    << options.config_path);
      return {};
    });
  if (!rebuild || options.stored_queue_counts.empty())
    return;
  // Stored messages stay routed: a topic the store has queues of, and the
  // table does not know, comes back with those queues.
  size_t rebuilt = 0;
  for (auto& [name, queues] : options.stored_queue_counts) {
    if (topics.count(name) != 0 || queues < 1)
      continue;
    topic_config cfg;
    cfg.topic_name = name;
    cfg.read_queue_nums = std::min(queues, max_topic_queue_nums);
    cfg.write_queue_nums = cfg.read_queue_nums;
    topics.emplace(name, std::move(cfg));
    ++rebuilt;
  }
  if (rebuilt > 0) {
    RMQ_WARN(component, "rebuilt " << rebuilt
                                   << " topics from the store's consume "
                                      "queues");
    bump_version();
    save();
  }
}

bool topic_config_table_state::is_system_topic(const std::string& topic) const {
  using namespace system_topics;
  for (auto name :
       {auto_create, schedule, benchmark, trans_half, trace, trans_op_half,
        trans_check_max_time, self_test, offset_moved_event, rocksdb_offset})
    if (topic == name)
      return true;
  if (starts_with(topic, prefix))
    return true;
  return std::find(reserved_topics.begin(), reserved_topics.end(), topic)
         != reserved_topics.end();
}

caf::expected<topic_config>
topic_config_table_state::get(const std::string& topic) const {
  if (auto i = topics.find(topic); i != topics.end())
    return i->second;
  return make_error(errc::topic_not_exist, "topic[" + topic + "] not exist");
}

topic_config_set topic_config_table_state::snapshot() const {
  topic_config_set result;
  result.topics.reserve(topics.size());
  for (auto& [name, cfg] : topics)
    result.topics.push_back(cfg);
  result.version = version;
  return result;
}

caf::expected<data_version>
topic_config_table_state::put(const topic_config& cfg) {
  if (auto err = check_broker_topic(cfg.topic_name))
    return err;
  if (is_system_topic(cfg.topic_name))
    return invalid("The topic[" + cfg.topic_name
                   + "] is conflict with system topic.");
  if (auto err = check_topic_fields(cfg))
    return err;
  if (auto i = topics.find(cfg.topic_name);
      i != topics.end() && i->second == cfg)
    return version;
  if (auto err = commit(cfg))
    return err;
  return version;
}

caf::expected<data_version>
topic_config_table_state::erase(const std::string& topic) {
  if (topic.empty())
    return invalid("The specified topic is blank.");
  if (is_system_topic(topic))
    return invalid("The topic[" + topic + "] is conflict with system topic.");
  if (topics.count(topic) == 0) {
    RMQ_WARN(component, "delete topic " << topic << ": not exists");
    return version;
  }
  if (auto err = commit_erase(topic))
    return err;
  return version;
}

caf::expected<topic_config>
topic_config_table_state::for_send(const topic_for_send_request& x) {
  if (auto err = check_broker_topic(x.topic))
    return err;
  if (is_not_allowed_send_topic(x.topic))
    return make_error(errc::no_permission, "Sending message to topic[" + x.topic
                                             + "] is forbidden.");
  if (auto i = topics.find(x.topic); i != topics.end())
    return i->second;
  auto not_exist = [&](const std::string& why) {
    return make_error(errc::topic_not_exist, "topic[" + x.topic
                                               + "] not exist, apply first "
                                                 "please! ("
                                               + why + ")");
  };
  auto i = topics.find(x.default_topic);
  if (i == topics.end())
    return not_exist("default topic " + x.default_topic + " not exist");
  auto default_perm = i->second.perm;
  // RocketMQ drops INHERIT from a stored TBW102 when auto-create is off
  // (and persists that later); we only refuse, the stored file stays as is.
  if (x.default_topic == system_topics::auto_create
      && !options.auto_create_topic_enable)
    return not_exist("autoCreateTopicEnable is off");
  if ((default_perm & perm::inherit) == 0)
    return not_exist("default topic " + x.default_topic + " has no perm "
                     + std::to_string(default_perm) + " to inherit");
  auto queues = std::min(x.default_queue_nums, i->second.write_queue_nums);
  if (queues < 1)
    return invalid("defaultTopicQueueNums " + std::to_string(queues)
                   + " gives a topic without queues");
  auto cfg = make_topic(x.topic, queues, default_perm & ~perm::inherit);
  cfg.topic_sys_flag = x.topic_sys_flag;
  cfg.topic_filter_type = i->second.topic_filter_type;
  if (auto err = commit(cfg))
    return err;
  RMQ_INFO(component, "created topic " << x.topic << " by default topic "
                                       << x.default_topic << " with " << queues
                                       << " queues");
  return cfg;
}

caf::expected<topic_config>
topic_config_table_state::group_topic(const group_topic_request& x) {
  if (auto err = check_group(x.group))
    return err;
  auto topic = (x.dlq ? system_topics::dlq_prefix : system_topics::retry_prefix)
               + x.group;
  if (auto i = topics.find(topic); i != topics.end())
    return i->second;
  auto cfg = make_topic(topic, x.queue_nums, x.perm);
  if (auto err = check_topic_fields(cfg))
    return err;
  if (auto err = commit(cfg))
    return err;
  RMQ_INFO(component, "created topic " << topic);
  return cfg;
}

caf::error topic_config_table_state::sync(const topic_config_set& master) {
  if (master.version == version)
    return {};
  if (file.blocked())
    return file.blocked();
  topics.clear();
  for (auto& cfg : master.topics)
    topics[cfg.topic_name] = cfg;
  version = master.version;
  save();
  ++changes;
  changed_ = true;
  return {};
}

bool topic_config_table_state::take_changed() {
  return std::exchange(changed_, false);
}

caf::error topic_config_table_state::commit(const topic_config& cfg) {
  if (file.blocked())
    return file.blocked();
  topics[cfg.topic_name] = cfg;
  bump_version();
  save();
  ++changes;
  changed_ = true;
  return {};
}

caf::error topic_config_table_state::commit_erase(const std::string& topic) {
  if (file.blocked())
    return file.blocked();
  topics.erase(topic);
  bump_version();
  save();
  ++changes;
  changed_ = true;
  RMQ_INFO(component, "deleted topic " << topic);
  return {};
}

void topic_config_table_state::bump_version() {
  // DataVersion#nextVersion: a new timestamp and counter + 1. The state
  // version is the store's state machine version, 0 without controller HA.
  version.timestamp = options.wall_clock.now_ms();
  ++version.counter;
}

void topic_config_table_state::save() {
  // A failure is logged and kept by `file`; the actor saves again.
  static_cast<void>(file.save(to_file_json(topics, version)));
}

bool topic_config_table_state::save_again() {
  if (file.dirty())
    save();
  return file.dirty();
}

nlohmann::json topic_config_table_state::dump_fields() const {
  auto rows = nlohmann::json::array();
  for (auto& [name, cfg] : topics)
    rows.push_back(cfg); // the message's to_json
  auto watcher_ids = nlohmann::json::array();
  for (auto& w : watchers)
    watcher_ids.push_back(w.id());
  nlohmann::json out{
    {"broker_name", options.broker_name},
    {"cluster_name", options.cluster_name},
    {"auto_create_topic_enable", options.auto_create_topic_enable},
    {"default_topic_queue_nums", options.default_topic_queue_nums},
    {"data_version", version},
    {"topic_count", topics.size()},
    {"topics", std::move(rows)},
    {"watchers", std::move(watcher_ids)},
    {"changes", changes},
  };
  file.add_dump_fields(out);
  return out;
}

// -- actor --------------------------------------------------------------------

topic_config_table_actor::behavior_type topic_config_table(
  topic_config_table_actor::stateful_pointer<topic_config_table_state> self,
  topic_config_table_options options) {
  self->state.init(std::move(options));
  self->set_down_handler([=](const caf::down_msg& msg) {
    auto& ws = self->state.watchers;
    ws.erase(std::remove_if(ws.begin(), ws.end(),
                            [&](const caf::actor& w) {
                              return w.address() == msg.source;
                            }),
             ws.end());
  });
  auto retry = [self] { arm_config_retry(self); };
  // Tells every watcher about a change (saved, or kept in memory while the
  // file cannot be written).
  auto announce = [=] {
    retry();
    if (!self->state.take_changed())
      return;
    auto set = self->state.snapshot();
    for (auto& w : self->state.watchers)
      // A typed actor may send() to typed actors only; the watcher needs no
      // sender (it is no reply).
      caf::anon_send(w, caf::put_atom::value, set);
  };
  retry(); // a rebuild at start may have failed to save
  // Every state function reports errors as values; none of them throws.
  return {
    [=](save_atom) { on_config_retry(self); },
    [=](caf::get_atom, const std::string& topic) -> caf::result<topic_config> {
      return self->state.get(topic);
    },
    [=](caf::get_atom) -> topic_config_set { return self->state.snapshot(); },
    [=](caf::put_atom, const topic_config& cfg) -> caf::result<data_version> {
      auto result = self->state.put(cfg);
      announce();
      return result;
    },
    [=](caf::delete_atom,
        const std::string& topic) -> caf::result<data_version> {
      auto result = self->state.erase(topic);
      announce();
      return result;
    },
    [=](const topic_for_send_request& x) -> caf::result<topic_config> {
      auto result = self->state.for_send(x);
      announce();
      return result;
    },
    [=](const group_topic_request& x) -> caf::result<topic_config> {
      auto result = self->state.group_topic(x);
      announce();
      return result;
    },
    [=](sync_atom, const topic_config_set& master) {
      if (auto err = self->state.sync(master))
        RMQ_WARN(component, "taking the master's topics: " << describe(err));
      announce();
    },
    [=](caf::subscribe_atom, const caf::actor& watcher) {
      auto& ws = self->state.watchers;
      if (!watcher || std::find(ws.begin(), ws.end(), watcher) != ws.end())
        return;
      self->monitor(watcher);
      ws.push_back(watcher);
    },
    dump_handler(self),
  };
}

} // namespace rmq
