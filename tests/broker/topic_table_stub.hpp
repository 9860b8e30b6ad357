// A stand-in for the topic config table (actors/broker/topic_config_table.*
// is written elsewhere): answers lookups from a fixed map and refuses every
// change, which is all the pull processor needs of it.
#pragma once

#include <map>
#include <string>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "messages/broker_topics.hpp"
#include "messages/errors.hpp"

namespace rmq::test {

struct topic_table_stub_state {
  std::map<std::string, topic_config> topics;
};

inline topic_config_table_actor::behavior_type topic_table_stub(
  topic_config_table_actor::stateful_pointer<topic_table_stub_state> self,
  std::map<std::string, topic_config> topics) {
  self->state.topics = std::move(topics);
  auto refuse = [] {
    return make_error(errc::request_code_not_supported, "stub");
  };
  return {
    [=](dump_atom) { return std::string{"{}"}; },
    [=](caf::get_atom, const std::string& topic) -> caf::result<topic_config> {
      auto i = self->state.topics.find(topic);
      if (i == self->state.topics.end())
        return make_error(errc::topic_not_exist, topic);
      return i->second;
    },
    [=](caf::get_atom) { return topic_config_set{}; },
    [=](caf::put_atom, const topic_config&) -> caf::result<data_version> {
      return refuse();
    },
    [=](caf::delete_atom, const std::string&) -> caf::result<data_version> {
      return refuse();
    },
    [=](const topic_for_send_request&) -> caf::result<topic_config> {
      return refuse();
    },
    [=](const group_topic_request&) -> caf::result<topic_config> {
      return refuse();
    },
    [=](caf::subscribe_atom, const caf::actor&) {
      // nop
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
