#include "actors/namesrv/topic_queue_table.hpp"

#include <set>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* topic_queue_table_state::name = "topic_queue_table";

bool topic_queue_table_state::apply(const broker_topics_update& update) {
  auto& name = update.broker_name;
  bool changed = false;
  if (update.delete_missing) {
    std::set<std::string> announced;
    for (auto& cfg : update.topics)
      announced.insert(cfg.topic_name);
    for (auto i = topics.begin(); i != topics.end();) {
      bool dropped = announced.count(i->first) == 0
                     && i->second.erase(name) > 0;
      changed = changed || dropped;
      if (dropped && i->second.empty())
        i = topics.erase(i);
      else
        ++i;
    }
  }
  for (auto& cfg : update.topics) {
    auto& brokers = topics[cfg.topic_name];
    auto i = brokers.find(name);
    // An unchanged data version keeps what operators did in between (e.g.
    // a wiped write perm), as RocketMQ does.
    if (!update.force && i != brokers.end())
      continue;
    auto qd = make_queue_data(name, cfg);
    if (update.strip_write)
      qd.perm &= ~perm::write;
    if (i == brokers.end() || i->second != qd) {
      brokers[name] = qd;
      changed = true;
    }
  }
  return changed;
}

void topic_queue_table_state::apply(const register_topic_request& req) {
  if (req.queue_datas.empty())
    return;
  auto& brokers = topics[req.topic];
  for (auto& qd : req.queue_datas)
    brokers[qd.broker_name] = qd;
}

void topic_queue_table_state::erase(const std::string& topic) {
  topics.erase(topic);
}

void topic_queue_table_state::erase(const std::string& topic,
                                    const std::vector<std::string>& names) {
  auto i = topics.find(topic);
  if (i == topics.end())
    return;
  for (auto& name : names)
    i->second.erase(name);
  if (i->second.empty())
    topics.erase(i);
}

void topic_queue_table_state::remove(
  const std::vector<broker_removal>& removals) {
  for (auto i = topics.begin(); i != topics.end();) {
    for (auto& x : removals) {
      auto j = i->second.find(x.broker_name);
      if (j == i->second.end())
        continue;
      if (x.removed)
        i->second.erase(j);
      else if (x.strip_write)
        j->second.perm &= ~perm::write;
    }
    i = i->second.empty() ? topics.erase(i) : std::next(i);
  }
}

int32_t topic_queue_table_state::wipe_write_perm(const std::string& name) {
  int32_t count = 0;
  for (auto& kvp : topics) {
    auto i = kvp.second.find(name);
    if (i != kvp.second.end()) {
      i->second.perm &= ~perm::write;
      ++count;
    }
  }
  return count;
}

int32_t topic_queue_table_state::add_write_perm(const std::string& name) {
  int32_t count = 0;
  for (auto& kvp : topics) {
    auto i = kvp.second.find(name);
    if (i != kvp.second.end()) {
      i->second.perm = perm::read_write; // RocketMQ overwrites other bits
      ++count;
    }
  }
  return count;
}

std::vector<queue_data>
topic_queue_table_state::queues_of(const std::string& topic) const {
  std::vector<queue_data> result;
  auto i = topics.find(topic);
  if (i != topics.end())
    for (auto& kvp : i->second)
      result.push_back(kvp.second);
  return result;
}

topic_list topic_queue_table_state::all_topics() const {
  topic_list result;
  result.topics.reserve(topics.size());
  for (auto& kvp : topics)
    result.topics.push_back(kvp.first);
  return result;
}

topic_list topic_queue_table_state::topics_on(
  const std::vector<std::string>& broker_names) const {
  topic_list result;
  for (auto& [topic, brokers] : topics)
    for (auto& name : broker_names)
      if (brokers.count(name) > 0) {
        result.topics.push_back(topic);
        break;
      }
  return result;
}

nlohmann::json topic_queue_table_state::dump_fields() const {
  auto rows = nlohmann::json::array();
  for (auto& [topic, brokers] : topics)
    for (auto& [broker, qd] : brokers) {
      rows.push_back(nlohmann::json(qd));
      rows.back()["topic"] = topic;
    }
  return {{"topic_count", topics.size()}, {"queues", rows}};
}

topic_queue_table_actor::behavior_type topic_queue_table(
  topic_queue_table_actor::stateful_pointer<topic_queue_table_state> self) {
  return {
    [self](caf::put_atom, const broker_topics_update& x) {
      return self->state.apply(x);
    },
    [self](caf::put_atom, const register_topic_request& x) {
      self->state.apply(x);
    },
    [self](caf::delete_atom, const std::string& topic) {
      self->state.erase(topic);
    },
    [self](caf::delete_atom, const std::string& topic,
           const std::vector<std::string>& names) {
      self->state.erase(topic, names);
    },
    [self](caf::delete_atom, const std::vector<broker_removal>& removals) {
      self->state.remove(removals);
    },
    [self](const wipe_write_perm_request& req) {
      return write_perm_result{self->state.wipe_write_perm(req.broker_name)};
    },
    [self](const add_write_perm_request& req) {
      return write_perm_result{self->state.add_write_perm(req.broker_name)};
    },
    [self](caf::get_atom,
           const std::string& topic) -> caf::result<std::vector<queue_data>> {
      auto result = self->state.queues_of(topic);
      if (result.empty())
        return make_error(errc::topic_not_exist,
                          "No topic route info in name server for the topic: "
                            + topic);
      return result;
    },
    [self](const get_all_topic_list_request&) {
      return self->state.all_topics();
    },
    [self](caf::get_atom, const std::vector<std::string>& names) {
      return self->state.topics_on(names);
    },
    dump_handler(self),
  };
}

} // namespace rmq
