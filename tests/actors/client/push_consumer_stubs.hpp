// A stub broker for consumer tests on the virtual clock: queues of stored
// messages a test appends to, long polls held until a message arrives,
// committed offsets, send-backs and queue locks, each recorded.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "caf/event_based_actor.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/client/client.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq::test {

/// What a consumer's stub broker holds and was asked.
struct push_broker_stub {
  /// (topic, queue id) -> the stored messages, offset = index.
  std::map<std::pair<std::string, int32_t>, std::vector<store_message>> queues;
  /// Commit-log offsets of the stored messages, same layout.
  std::map<std::pair<std::string, int32_t>, std::vector<int64_t>> phys;
  int64_t next_phys = 1000;
  /// Pulls parked until a message arrives (long polling).
  struct held_pull {
    pull_message_request req;
    caf::typed_response_promise<pull_message_result> rp;
  };
  std::vector<held_pull> held;
  std::vector<pull_message_request> pulls;
  /// (topic, queue id) -> committed offset.
  std::map<std::pair<std::string, int32_t>, int64_t> committed;
  std::vector<update_offset_request> commits;
  std::vector<query_offset_request> queries;
  std::vector<search_offset_request> searches;
  /// SEARCH_OFFSET_BY_TIMESTAMP's answer.
  int64_t search_answer = 0;
  std::vector<consumer_send_back_request> send_backs;
  bool fail_send_back = false;
  std::vector<lock_batch_request> locks;
  std::vector<unlock_batch_request> unlocks;
  /// Grants every lock asked for, else none.
  bool grant_locks = true;
  /// Parks lock requests (answered on a tick once false again).
  bool hold_locks = false;
  struct held_lock {
    lock_batch_request req;
    caf::typed_response_promise<locked_queues> rp;
  };
  std::vector<held_lock> held_locks;
  std::vector<client_heartbeat> heartbeats;
  /// GET_CONSUMER_LIST_BY_GROUP's answer (the rebalance service's members).
  std::vector<std::string> members;
  std::vector<unregister_client_request> unregistrations;
  /// (topic, queue id, offset) of records damaged in the store: a pull
  /// that starts at one is refused (corrupt_data), one that reaches one
  /// stops before it, as message_store::get_messages does.
  std::set<std::tuple<std::string, int32_t, int64_t>> damaged;

  /// Stores a message; returns its queue offset.
  int64_t append(const std::string& topic, int32_t queue_id, std::string body,
                 const std::string& tags = {}) {
    store_message m;
    m.topic = topic;
    m.queue_id = queue_id;
    m.born_timestamp = 1700000000000;
    m.born_ip = 0x0A000001;
    m.born_port = 5000;
    m.body = std::move(body);
    property_list props;
    if (!tags.empty())
      props.emplace_back("TAGS", tags);
    m.properties = encode_properties(props);
    auto& q = queues[{topic, queue_id}];
    q.push_back(m);
    phys[{topic, queue_id}].push_back(next_phys);
    next_phys += static_cast<int64_t>(record_size(m));
    return static_cast<int64_t>(q.size()) - 1;
  }

  int64_t max_offset(const std::string& topic, int32_t queue_id) {
    return static_cast<int64_t>(queues[{topic, queue_id}].size());
  }

  /// The answer to `req` now.
  pull_message_result answer(const pull_message_request& req) {
    pull_message_result res;
    auto key = std::make_pair(req.topic, req.queue_id);
    auto& q = queues[key];
    auto max = static_cast<int64_t>(q.size());
    res.min_offset = 0;
    res.max_offset = max;
    if (req.queue_offset > max) {
      res.status = static_cast<uint8_t>(pull_status::offset_illegal);
      res.next_begin_offset = max;
      return res;
    }
    if (req.queue_offset == max) {
      res.status = static_cast<uint8_t>(pull_status::no_new_msg);
      res.next_begin_offset = max;
      return res;
    }
    res.status = static_cast<uint8_t>(pull_status::found);
    auto end = std::min<int64_t>(max, req.queue_offset + req.max_msg_nums);
    for (auto i = req.queue_offset; i < end; ++i) {
      if (damaged.count({req.topic, req.queue_id, i}) != 0) {
        end = i;
        break;
      }
      record_stamp st;
      st.queue_offset = i;
      st.phys_offset = phys[key][static_cast<size_t>(i)];
      st.store_timestamp = 1700000000500 + i;
      st.store_ip = 0x7F000001;
      st.store_port = 10911;
      auto& m = q[static_cast<size_t>(i)];
      std::string rec(record_size(m), '\0');
      encode_record(m, st, rec.data());
      res.buffer += rec;
      ++res.message_count;
    }
    res.next_begin_offset = end;
    return res;
  }

  /// Answers the held pulls that can be answered now.
  void wake() {
    std::vector<held_pull> still;
    for (auto& h : held) {
      if (h.req.queue_offset < max_offset(h.req.topic, h.req.queue_id))
        h.rp.deliver(answer(h.req));
      else
        still.push_back(h);
    }
    held = std::move(still);
  }

  /// Ends every held pull with NO_NEW_MSG (their suspend timed out).
  void expire_held() {
    for (auto& h : held)
      h.rp.deliver(answer(h.req));
    held.clear();
  }
};

/// Dynamically typed so that it also takes `tick_atom`: "wake the held
/// pulls" (a promise must be delivered from inside its actor). Cast it to
/// client_broker_actor for the directory.
inline caf::behavior push_stub_broker(caf::event_based_actor* self,
                                      std::shared_ptr<push_broker_stub> st) {
  auto unsupported = [] {
    return make_error(errc::request_code_not_supported, "stub broker");
  };
  return {
    [=](const send_message_request&) -> caf::result<send_result> {
      return unsupported();
    },
    [=](const pull_message_request& req) {
      st->pulls.push_back(req);
      auto rp = self->make_response_promise<pull_message_result>();
      if (st->damaged.count({req.topic, req.queue_id, req.queue_offset}) != 0)
        rp.deliver(
          make_error(errc::corrupt_data, "stub: record damaged in the store"));
      else if (req.queue_offset == st->max_offset(req.topic, req.queue_id)
               && (req.sys_flag & pull_sys_flag::suspend) != 0)
        st->held.push_back({req, rp});
      else
        rp.deliver(st->answer(req));
      return rp;
    },
    [=](const consumer_send_back_request& req) -> caf::result<caf::ok_atom> {
      st->send_backs.push_back(req);
      if (st->fail_send_back)
        return make_error(errc::system_error, "stub: send-back refused");
      return caf::ok_atom::value;
    },
    [=](const client_heartbeat& hb) {
      st->heartbeats.push_back(hb);
      return caf::ok_atom::value;
    },
    [=](const unregister_client_request& req) {
      st->unregistrations.push_back(req);
      return caf::ok_atom::value;
    },
    [=](const get_consumer_list_request&) -> caf::result<consumer_list> {
      if (st->members.empty())
        return unsupported();
      return consumer_list{st->members};
    },
    [=](const lock_batch_request& req) {
      st->locks.push_back(req);
      auto rp = self->make_response_promise<locked_queues>();
      locked_queues res;
      if (st->grant_locks)
        res.queues = req.queues;
      if (st->hold_locks)
        st->held_locks.push_back({req, rp});
      else
        rp.deliver(res);
      return rp;
    },
    [=](const unlock_batch_request& req) {
      st->unlocks.push_back(req);
      return caf::ok_atom::value;
    },
    [=](const query_offset_request& req) -> caf::result<int64_t> {
      st->queries.push_back(req);
      auto i = st->committed.find({req.topic, req.queue_id});
      if (i == st->committed.end())
        return make_error(errc::query_not_found, "stub: no offset");
      return i->second;
    },
    [=](const update_offset_request& req) {
      st->commits.push_back(req);
      st->committed[{req.topic, req.queue_id}] = req.commit_offset;
      return caf::ok_atom::value;
    },
    [=](const get_offset_request& req) {
      return queue_offsets{0, st->max_offset(req.topic, req.queue_id)};
    },
    [=](const search_offset_request& req) -> caf::result<int64_t> {
      st->searches.push_back(req);
      return st->search_answer;
    },
    [=](caf::tick_atom) {
      st->wake();
      if (!st->hold_locks) {
        for (auto& h : st->held_locks)
          h.rp.deliver(locked_queues{
            st->grant_locks ? h.req.queues : std::vector<client_queue>{}});
        st->held_locks.clear();
      }
    },
    [=](expire_atom) { st->expire_held(); },
    [](dump_atom) { return std::string{"{}"}; },
  };
}

} // namespace rmq::test
