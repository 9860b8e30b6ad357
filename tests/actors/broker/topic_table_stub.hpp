// A stand-in for the topic config table (actors/broker/table/topic_config_table.*)
// for the tests of the actors that ask it: answers lookups from a map,
// keeps puts and deletes, can stall every send lookup (a table that never
// answers) and can create group topics. Its dump shows what it was asked:
// `{"last": <last topic_for_send_request>, "asked": [group_topic_request]}`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/broker/topics.hpp"
#include "messages/common/errors.hpp"

namespace rmq::test {

struct topic_table_stub_options {
  std::map<std::string, topic_config> topics;
  /// Send lookups are never answered.
  bool silent = false;
  /// Group topic requests create `%RETRY%<group>` / `%DLQ%<group>`;
  /// otherwise they are refused.
  bool create_group_topics = false;
};

struct topic_table_stub_state {
  topic_table_stub_options options;
  topic_for_send_request last;
  std::vector<group_topic_request> asked;
  std::vector<caf::typed_response_promise<topic_config>> stalled;
};

inline topic_config_table_actor::behavior_type topic_table_stub(
  topic_config_table_actor::stateful_pointer<topic_table_stub_state> self,
  topic_table_stub_options options) {
  self->state.options = std::move(options);
  auto find = [self](const std::string& name) -> caf::result<topic_config> {
    auto& topics = self->state.options.topics;
    auto i = topics.find(name);
    if (i == topics.end())
      return make_error(errc::topic_not_exist, "topic " + name);
    return i->second;
  };
  return {
    [=](dump_atom) {
      return nlohmann::json{{"last", self->state.last},
                            {"asked", self->state.asked}}
        .dump();
    },
    [=](caf::get_atom, const std::string& name) { return find(name); },
    [=](caf::get_atom) { return topic_config_set{}; },
    [=](caf::put_atom, const topic_config& tc) {
      self->state.options.topics[tc.topic_name] = tc;
      return data_version{};
    },
    [=](caf::delete_atom, const std::string& name) {
      self->state.options.topics.erase(name);
      return data_version{};
    },
    [=](const topic_for_send_request& req) -> caf::result<topic_config> {
      self->state.last = req;
      if (self->state.options.silent) {
        auto rp = self->make_response_promise<topic_config>();
        self->state.stalled.push_back(rp);
        return rp;
      }
      return find(req.topic);
    },
    [=](const group_topic_request& req) -> caf::result<topic_config> {
      self->state.asked.push_back(req);
      if (!self->state.options.create_group_topics)
        return make_error(errc::request_code_not_supported, "stand-in");
      auto name = (req.dlq ? "%DLQ%" : "%RETRY%") + req.group;
      auto& topics = self->state.options.topics;
      auto i = topics.find(name);
      if (i != topics.end())
        return i->second;
      topic_config tc;
      tc.topic_name = name;
      tc.read_queue_nums = tc.write_queue_nums = req.queue_nums;
      tc.perm = req.perm;
      topics[name] = tc;
      return tc;
    },
    [=](caf::subscribe_atom, const caf::actor&) {
      // nop
    },
    [](sync_atom, const topic_config_set&) {
      // nop: no slave here
    },
    [](save_atom) {
      // nop: nothing to save
    },
  };
}

inline topic_config make_topic(std::string name, int32_t queues,
                               int32_t perm = perm::read_write) {
  topic_config tc;
  tc.topic_name = std::move(name);
  tc.read_queue_nums = tc.write_queue_nums = queues;
  tc.perm = perm;
  return tc;
}

} // namespace rmq::test
