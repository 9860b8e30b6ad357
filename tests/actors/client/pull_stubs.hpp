// Stand-ins for a consumer's world on the virtual clock: a route cache
// whose answers a test sets (or fails), a broker that keeps queues of
// messages, members per group and committed offsets and parks long polls
// until a test adds a message or ends them, a heartbeat sender and a
// rebalance service that record what consumers ask of them, and a
// rebalance target that records its assignments.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "caf/sec.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/client/client.hpp"
#include "messages/client/consumer.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq::test {

// -- route cache ----------------------------------------------------------------

struct route_cache_stub {
  std::map<std::string, topic_route_data> routes;
  /// Topics whose route requests fail (service_not_available).
  std::set<std::string> failing;
  std::map<std::string, int> asked;
};

inline route_cache_actor::behavior_type
stub_route_cache(route_cache_actor::pointer,
                 std::shared_ptr<route_cache_stub> st) {
  return {
    [=](route_atom, const std::string& topic) -> caf::result<topic_route_data> {
      ++st->asked[topic];
      if (st->failing.count(topic) > 0)
        return make_error(errc::service_not_available, "stub: " + topic);
      auto i = st->routes.find(topic);
      if (i == st->routes.end())
        return make_error(errc::topic_not_exist, topic);
      return i->second;
    },
    [](refresh_atom, const std::string&) {},
    [=](brokers_atom) {
      std::map<std::string, broker_data> xs;
      for (auto& [topic, r] : st->routes)
        for (auto& b : r.broker_datas)
          xs[b.broker_name] = b;
      std::vector<broker_data> result;
      for (auto& [name, b] : xs)
        result.push_back(b);
      return result;
    },
    [](caf::subscribe_atom, const route_listener_actor&) {},
    [](peer_lost_atom, const std::string&) {},
    [](tick_atom) {},
    [](dump_atom) { return std::string{"{}"}; },
  };
}

// -- broker -------------------------------------------------------------------------

/// A message as the stub broker stores it.
struct stub_message {
  std::string tags;
  std::string keys;
  std::string body;
  /// Marked COMPRESSED: a body that is no zlib stream cannot be decoded.
  bool compressed = false;
};

using queue_key = std::pair<std::string, int32_t>;

struct consumer_broker_stub {
  /// For the pulled records' store host.
  uint32_t store_port = 10911;
  /// Members by group (GET_CONSUMER_LIST_BY_GROUP).
  std::map<std::string, std::vector<std::string>> members;
  bool fail_members = false;
  int member_asks = 0;
  std::map<queue_key, std::vector<stub_message>> queues;
  /// Committed offsets by group, topic, queue id.
  std::map<std::tuple<std::string, std::string, int32_t>, int64_t> offsets;
  std::vector<update_offset_request> updates;
  std::vector<pull_message_request> pulls;
  /// Pulls that fail with system_busy while set.
  bool fail_pulls = false;
  /// (topic, queue id, offset) of records damaged in the store: a pull
  /// that starts at one is refused (corrupt_data), one that reaches one
  /// stops before it, as message_store::get_messages does.
  std::set<std::tuple<std::string, int32_t, int64_t>> damaged;
  /// Parked long polls.
  std::vector<std::pair<pull_message_request,
                        caf::typed_response_promise<pull_message_result>>>
    parked;
  std::vector<client_heartbeat> heartbeats;
  std::vector<unregister_client_request> unregistrations;

  /// The pull's answer now (parks nothing).
  pull_message_result answer(const pull_message_request& req) const {
    pull_message_result res;
    auto i = queues.find({req.topic, req.queue_id});
    int64_t max = i == queues.end() ? 0 : int64_t(i->second.size());
    res.min_offset = 0;
    res.max_offset = max;
    if (req.queue_offset > max || req.queue_offset < 0) {
      res.status = static_cast<uint8_t>(pull_status::offset_illegal);
      res.next_begin_offset = req.queue_offset < 0 ? 0 : max;
      return res;
    }
    if (req.queue_offset == max) {
      res.status = static_cast<uint8_t>(pull_status::no_new_msg);
      res.next_begin_offset = max;
      return res;
    }
    res.status = static_cast<uint8_t>(pull_status::found);
    auto end = std::min<int64_t>(max, req.queue_offset + req.max_msg_nums);
    for (auto off = req.queue_offset; off < end; ++off) {
      if (damaged.count({req.topic, req.queue_id, off}) != 0) {
        end = off;
        break;
      }
      auto& m = i->second[size_t(off)];
      store_message sm;
      sm.topic = req.topic;
      sm.queue_id = req.queue_id;
      sm.body = m.body;
      property_list props;
      if (!m.tags.empty())
        props.emplace_back("TAGS", m.tags);
      if (!m.keys.empty())
        props.emplace_back("KEYS", m.keys);
      sm.properties = encode_properties(props);
      if (m.compressed)
        sm.sys_flag = sys_flag::compressed;
      record_stamp stamp;
      stamp.queue_offset = off;
      stamp.phys_offset = 1000 + off * 100;
      stamp.store_timestamp = 1700000000000 + off;
      stamp.store_ip = 0x7F000001;
      stamp.store_port = store_port;
      std::string rec(record_size(sm), '\0');
      encode_record(sm, stamp, rec.data());
      res.buffer += rec;
      ++res.message_count;
    }
    res.next_begin_offset = end;
    return res;
  }

  /// Appends a message; send the stub `caf::update_atom` to answer the
  /// long polls it satisfies (promises are delivered inside the actor).
  void add(const std::string& topic, int32_t queue_id, stub_message m) {
    queues[{topic, queue_id}].push_back(std::move(m));
  }

  /// Answers every parked poll that has something now.
  void wake() {
    for (auto i = parked.begin(); i != parked.end();) {
      auto res = answer(i->first);
      if (res.status == static_cast<uint8_t>(pull_status::no_new_msg)) {
        ++i;
        continue;
      }
      i->second.deliver(res);
      i = parked.erase(i);
    }
  }

  /// Ends every parked poll (their suspend timeout).
  void expire() {
    for (auto& [req, rp] : parked)
      rp.deliver(answer(req));
    parked.clear();
  }
};

/// The stub broker's interface: a broker's, plus `update_atom` (answer the
/// parked polls that have messages now) and `flush_atom` (end them all, as
/// their suspend timeout would).
using consumer_broker_stub_actor
  = client_broker_actor::extend<caf::reacts_to<caf::update_atom>,
                                caf::reacts_to<caf::flush_atom>>;

inline consumer_broker_stub_actor::behavior_type
stub_consumer_broker(consumer_broker_stub_actor::pointer self,
                     std::shared_ptr<consumer_broker_stub> st) {
  auto unsupported = [] {
    return make_error(errc::request_code_not_supported, "stub broker");
  };
  return {
    [=](const send_message_request&) -> caf::result<send_result> {
      return unsupported();
    },
    [=](const pull_message_request& req)
      -> caf::typed_response_promise<pull_message_result> {
      auto rp = self->make_response_promise<pull_message_result>();
      st->pulls.push_back(req);
      if (st->fail_pulls) {
        rp.deliver(make_error(errc::system_busy, "stub: busy"));
        return rp;
      }
      if (st->damaged.count({req.topic, req.queue_id, req.queue_offset}) != 0) {
        rp.deliver(make_error(errc::corrupt_data, "stub: record damaged"));
        return rp;
      }
      auto res = st->answer(req);
      if (res.status == static_cast<uint8_t>(pull_status::no_new_msg)
          && (req.sys_flag & pull_sys_flag::suspend) != 0)
        st->parked.emplace_back(req, rp);
      else
        rp.deliver(res);
      return rp;
    },
    [=](const consumer_send_back_request&) -> caf::result<caf::ok_atom> {
      return unsupported();
    },
    [=](const client_heartbeat& hb) {
      st->heartbeats.push_back(hb);
      return caf::ok_atom::value;
    },
    [=](const unregister_client_request& req) {
      st->unregistrations.push_back(req);
      return caf::ok_atom::value;
    },
    [=](const get_consumer_list_request& req) -> caf::result<consumer_list> {
      ++st->member_asks;
      if (st->fail_members)
        return make_error(errc::system_error, "stub: members");
      return consumer_list{st->members[req.group]};
    },
    [=](const lock_batch_request&) -> caf::result<locked_queues> {
      return unsupported();
    },
    [=](const unlock_batch_request&) -> caf::result<caf::ok_atom> {
      return unsupported();
    },
    [=](const query_offset_request& req) -> caf::result<int64_t> {
      auto i = st->offsets.find({req.consumer_group, req.topic, req.queue_id});
      if (i == st->offsets.end())
        return make_error(errc::query_not_found, "stub: no offset");
      return i->second;
    },
    [=](const update_offset_request& req) {
      st->updates.push_back(req);
      st->offsets[{req.consumer_group, req.topic, req.queue_id}]
        = req.commit_offset;
      return caf::ok_atom::value;
    },
    [=](const get_offset_request& req) {
      auto i = st->queues.find({req.topic, req.queue_id});
      int64_t max = i == st->queues.end() ? 0 : int64_t(i->second.size());
      return queue_offsets{0, max};
    },
    [=](const search_offset_request&) -> caf::result<int64_t> {
      return int64_t{0};
    },
    [=](caf::update_atom) { st->wake(); },
    [=](caf::flush_atom) { st->expire(); },
    [](dump_atom) { return std::string{"{}"}; },
  };
}

// -- heartbeat sender and rebalance service -------------------------------------

struct heartbeat_stub {
  std::vector<consumer_data> registered;
  std::vector<std::string> unregistered;
};

inline client_heartbeat_service_actor::behavior_type
stub_heartbeats(client_heartbeat_service_actor::pointer,
                std::shared_ptr<heartbeat_stub> st) {
  return {
    [](producer_atom, const std::string&) { return caf::ok_atom::value; },
    [=](consumer_atom, const consumer_data& c) {
      st->registered.push_back(c);
      return caf::ok_atom::value;
    },
    [](caf::delete_atom, producer_atom, const std::string&) {
      return caf::ok_atom::value;
    },
    [=](caf::delete_atom, consumer_atom, const std::string& group) {
      st->unregistered.push_back(group);
      return caf::ok_atom::value;
    },
    [](const consumer_ids_changed&) {},
    [](caf::subscribe_atom, const caf::actor&) {},
    [](tick_atom) {},
    [](const check_transaction_state&) {},
    [](caf::subscribe_atom, transaction_atom, const std::string&,
       const transaction_check_listener_actor&) {},
    [](const push_reply_message&) {},
    [](heartbeat_atom) { return caf::ok_atom::value; },
    [](dump_atom) { return std::string{"{}"}; },
  };
}

struct rebalance_stub {
  std::vector<rebalance_subscription> registered;
  int removed = 0;
};

inline rebalance_service_actor::behavior_type
stub_rebalance(rebalance_service_actor::pointer,
               std::shared_ptr<rebalance_stub> st) {
  return {
    [=](caf::put_atom, const rebalance_subscription& sub,
        const rebalance_target_actor&) {
      st->registered.push_back(sub);
      return caf::ok_atom::value;
    },
    [=](caf::delete_atom, const rebalance_target_actor&) { ++st->removed; },
    [](rebalance_atom) {},
    [](const consumer_ids_changed&) {},
    [](tick_atom) {},
    [](dump_atom) { return std::string{"{}"}; },
  };
}

// -- rebalance target -----------------------------------------------------------

struct target_log {
  std::vector<queue_assignment> got;
};

inline rebalance_target_actor::behavior_type
recording_target(rebalance_target_actor::pointer,
                 std::shared_ptr<target_log> log) {
  return {
    [=](assign_atom, const queue_assignment& a) { log->got.push_back(a); },
  };
}

} // namespace rmq::test
