// One fake broker for every client test, on the deterministic coordinator
// or in a threaded system: it takes every request of client_broker_actor
// and does what the test scripted, so producer, consumer and client
// instance tests share one stand-in instead of one each. The test keeps
// the `fake_broker` (its script and its records) and reads or changes it
// between steps; the actor only ever touches it from its own handlers.
// What it fakes:
// - sends: answered (one offset per message, real offsetMsgIds), failed,
//   never answered, or held until `release_atom`; END_TRANSACTION and
//   SEND_REPLY_MESSAGE recorded;
// - the client registry: heartbeats, their senders, unregistrations;
// - a store for pulls: queues of messages, damaged records, long polls
//   parked until `tick_atom` (a message arrived) or `expire_atom` (their
//   suspend timeout);
// - consumer offsets, members of groups, send-backs and queue locks.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "caf/actor_cast.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/client/client.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_batch.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq::test {

/// The value of property `key` in encoded properties, empty if none.
inline std::string property_of(const std::string& props,
                               const std::string& key) {
  auto xs = decode_properties(props);
  if (xs)
    for (auto& [k, v] : *xs)
      if (k == key)
        return v;
  return {};
}

/// The UNIQ_KEYs of a send, one per message (a batch has several).
inline std::vector<std::string> uniq_keys_of(const send_message_request& req) {
  std::vector<std::string> out;
  if (!req.batch) {
    out.push_back(property_of(req.properties, property_uniq_key));
    return out;
  }
  auto entries = decode_batch(req.body);
  if (entries)
    for (auto& e : *entries)
      out.push_back(property_of(e.properties, property_uniq_key));
  return out;
}

/// The fake's store host by default: 127.0.0.1:10911 in offsetMsgIds and
/// pulled records.
constexpr uint32_t fake_store_ip = 0x7F000001;
constexpr uint32_t fake_store_port = 10911;

/// Where the fake stores the sent message of queue offset `queue_offset`
/// in its commit log (what its offsetMsgIds encode, and what an
/// END_TRANSACTION must name).
inline int64_t commit_offset_of(int64_t queue_offset) {
  return 5000 + queue_offset * 250;
}

/// Tells a fake broker to answer its held sends (a promise must be
/// delivered from its actor's context).
using release_atom = caf::atom_constant<caf::atom("release")>;

/// A broker's interface, plus what a test drives it with: `release_atom`
/// (answer the held sends), `tick_atom` (answer the parked polls that have
/// messages now, and the held locks once `hold_locks` is off) and
/// `expire_atom` (end every parked poll, as their suspend timeout would).
using fake_broker_actor = client_broker_actor::extend<
  caf::replies_to<send_reply_message_request>::with<send_result>,
  caf::reacts_to<end_transaction_request>, caf::reacts_to<release_atom>,
  caf::reacts_to<caf::tick_atom>, caf::reacts_to<expire_atom>>;

/// A fake broker's script and records. Only the two counts are safe to read
/// while the actor runs in another thread (facade tests wait on them).
struct fake_broker {
  // -- sends --------------------------------------------------------------

  enum class mode {
    /// Answers at once with `status`.
    answer,
    /// Fails at once with `error`.
    fail,
    /// Never answers (the request waits in `held_sends` all the same).
    silent,
    /// Keeps the request in `held_sends` until `release_atom`.
    hold,
  };
  mode how = mode::answer;
  caf::error error;
  uint8_t status = 0;
  std::vector<send_message_request> sends;
  /// sends.size(), readable from another thread.
  std::atomic<size_t> send_count{0};
  /// The requests of SEND_REPLY_MESSAGE, answered as sends whatever `how`.
  std::vector<send_message_request> replies;
  std::vector<
    std::pair<send_message_request, caf::typed_response_promise<send_result>>>
    held_sends;
  /// The queue offset of the next message sent (sends are not pulled).
  int64_t next_offset = 0;
  std::vector<end_transaction_request> ends;
  /// ends.size(), readable from another thread.
  std::atomic<size_t> end_count{0};

  /// The store host in offsetMsgIds and pulled records.
  uint32_t store_ip = fake_store_ip;
  uint32_t store_port = fake_store_port;

  // -- client registry ----------------------------------------------------

  std::vector<client_heartbeat> heartbeats;
  /// The senders of the heartbeats (the client's channel).
  std::vector<caf::actor_addr> channels;
  std::vector<unregister_client_request> unregistrations;
  /// Heartbeats and unregistrations are never answered (their promises are
  /// kept here).
  bool hung = false;
  std::vector<caf::typed_response_promise<caf::ok_atom>> stalled;

  // -- store --------------------------------------------------------------

  using queue_key = std::pair<std::string, int32_t>;
  /// The stored messages of each queue; queue offset = index.
  std::map<queue_key, std::vector<store_message>> queues;
  /// Their commit-log offsets, same layout (a send-back names one).
  std::map<queue_key, std::vector<int64_t>> phys;
  int64_t next_phys = 1000;
  std::vector<pull_message_request> pulls;
  /// Pulls fail with system_busy while set.
  bool fail_pulls = false;
  /// Every pull answer's suggestWhichBrokerId.
  int64_t suggest = 0;
  /// (topic, queue id, offset) of records damaged in the store: a pull
  /// that starts at one is refused (corrupt_data), one that reaches one
  /// stops before it, as message_store::get_messages does.
  std::set<std::tuple<std::string, int32_t, int64_t>> damaged;
  /// Long polls with nothing to read yet.
  struct parked_pull {
    pull_message_request req;
    caf::typed_response_promise<pull_message_result> rp;
  };
  std::vector<parked_pull> parked;

  // -- consumer offsets ---------------------------------------------------

  /// Committed offsets by group, topic and queue id.
  std::map<std::tuple<std::string, std::string, int32_t>, int64_t> offsets;
  std::vector<update_offset_request> updates;
  std::vector<query_offset_request> queries;
  std::vector<search_offset_request> searches;
  /// SEARCH_OFFSET_BY_TIMESTAMP's answer.
  int64_t search_answer = 0;

  // -- members, send-backs, locks -----------------------------------------

  /// GET_CONSUMER_LIST_BY_GROUP's answers, by group (none: an empty list).
  std::map<std::string, std::vector<std::string>> members;
  bool fail_members = false;
  int member_asks = 0;
  std::vector<consumer_send_back_request> send_backs;
  bool fail_send_back = false;
  std::vector<lock_batch_request> locks;
  std::vector<unlock_batch_request> unlocks;
  /// Grants every lock asked for, else none.
  bool grant_locks = true;
  /// Keeps lock requests (answered on a tick once off again).
  bool hold_locks = false;
  struct held_lock {
    lock_batch_request req;
    caf::typed_response_promise<locked_queues> rp;
  };
  std::vector<held_lock> held_locks;

  // -- sends: answers -----------------------------------------------------

  /// The answer to send `req`: one queue offset per message, counting up
  /// from `next_offset`, msgIds from the UNIQ_KEYs.
  send_result send_answer(const send_message_request& req) {
    send_result res;
    res.status = status;
    res.queue_id = req.queue_id;
    res.queue_offset = next_offset;
    for (auto& key : uniq_keys_of(req)) {
      auto off = next_offset++;
      res.queue_offsets.push_back(off);
      if (!res.msg_id.empty()) {
        res.msg_id += ",";
        res.offset_msg_id += ",";
      }
      res.msg_id += key;
      res.offset_msg_id += encode_offset_msg_id(store_ip, store_port,
                                                commit_offset_of(off));
    }
    return res;
  }

  /// Answers every held send.
  void release_held() {
    auto xs = std::move(held_sends);
    held_sends.clear();
    for (auto& [req, rp] : xs)
      rp.deliver(send_answer(req));
  }

  // -- store: contents ----------------------------------------------------

  /// Stores `m` at the end of its queue; returns its queue offset.
  int64_t append(const std::string& topic, int32_t queue_id, store_message m) {
    m.topic = topic;
    m.queue_id = queue_id;
    phys[{topic, queue_id}].push_back(next_phys);
    next_phys += static_cast<int64_t>(record_size(m));
    auto& q = queues[{topic, queue_id}];
    q.push_back(std::move(m));
    return static_cast<int64_t>(q.size()) - 1;
  }

  /// Stores a message of `body`, TAGS and KEYS (when not empty), marked
  /// COMPRESSED if `compressed` (a body that is no zlib stream cannot be
  /// decoded). Send the actor `tick_atom` to answer the polls it satisfies.
  int64_t append(const std::string& topic, int32_t queue_id, std::string body,
                 const std::string& tags = {}, const std::string& keys = {},
                 bool compressed = false) {
    store_message m;
    m.born_timestamp = 1700000000000;
    m.born_ip = 0x0A000001;
    m.born_port = 5000;
    m.body = std::move(body);
    property_list props;
    if (!tags.empty())
      props.emplace_back("TAGS", tags);
    if (!keys.empty())
      props.emplace_back("KEYS", keys);
    m.properties = encode_properties(props);
    if (compressed)
      m.sys_flag = sys_flag::compressed;
    return append(topic, queue_id, std::move(m));
  }

  int64_t max_offset(const std::string& topic, int32_t queue_id) const {
    auto i = queues.find({topic, queue_id});
    return i == queues.end() ? 0 : static_cast<int64_t>(i->second.size());
  }

  // -- store: pulls -------------------------------------------------------

  /// The answer to pull `req` now (parks nothing).
  pull_message_result pull_answer(const pull_message_request& req) const {
    pull_message_result res;
    res.suggest_which_broker_id = suggest;
    auto max = max_offset(req.topic, req.queue_id);
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
    auto& q = queues.at({req.topic, req.queue_id});
    auto& offs = phys.at({req.topic, req.queue_id});
    auto end = std::min<int64_t>(max, req.queue_offset + req.max_msg_nums);
    for (auto off = req.queue_offset; off < end; ++off) {
      if (damaged.count({req.topic, req.queue_id, off}) != 0) {
        end = off;
        break;
      }
      record_stamp stamp;
      stamp.queue_offset = off;
      stamp.phys_offset = offs[static_cast<size_t>(off)];
      stamp.store_timestamp = 1700000000500 + off;
      stamp.store_ip = store_ip;
      stamp.store_port = store_port;
      auto& m = q[static_cast<size_t>(off)];
      std::string rec(record_size(m), '\0');
      encode_record(m, stamp, rec.data());
      res.buffer += rec;
      ++res.message_count;
    }
    res.next_begin_offset = end;
    return res;
  }

  /// Answers every parked poll that has something now.
  void wake() {
    for (auto i = parked.begin(); i != parked.end();) {
      auto res = pull_answer(i->req);
      if (res.status == static_cast<uint8_t>(pull_status::no_new_msg)) {
        ++i;
        continue;
      }
      i->rp.deliver(res);
      i = parked.erase(i);
    }
  }

  /// Ends every parked poll with its answer now (their suspend timeout).
  void expire() {
    auto xs = std::move(parked);
    parked.clear();
    for (auto& p : xs)
      p.rp.deliver(pull_answer(p.req));
  }

  /// Answers the held locks unless `hold_locks` is still on.
  void release_locks() {
    if (hold_locks)
      return;
    for (auto& h : held_locks)
      h.rp.deliver(locked_queues{grant_locks ? h.req.queues
                                             : std::vector<client_queue>{}});
    held_locks.clear();
  }
};

/// The actor that plays the broker `fb` scripts and records. Its handle
/// converts to client_broker_actor for a directory.
inline fake_broker_actor::behavior_type
play_broker(fake_broker_actor::pointer self, std::shared_ptr<fake_broker> fb) {
  // Heartbeats and unregistrations: ok, or never when hung.
  auto registry_answer = [=] {
    auto rp = self->make_response_promise<caf::ok_atom>();
    if (fb->hung)
      fb->stalled.push_back(rp);
    else
      rp.deliver(caf::ok_atom::value);
    return rp;
  };
  return {
    // -- sends --
    [=](const send_message_request& req) -> caf::result<send_result> {
      fb->sends.push_back(req);
      ++fb->send_count;
      switch (fb->how) {
        case fake_broker::mode::answer:
          return fb->send_answer(req);
        case fake_broker::mode::fail:
          return fb->error;
        case fake_broker::mode::silent:
        case fake_broker::mode::hold:
          break;
      }
      auto rp = self->make_response_promise<send_result>();
      fb->held_sends.emplace_back(req, rp);
      return rp;
    },
    [=](const send_reply_message_request& x) {
      fb->replies.push_back(x.request);
      return fb->send_answer(x.request);
    },
    [=](const end_transaction_request& req) {
      fb->ends.push_back(req);
      ++fb->end_count;
    },
    [=](release_atom) { fb->release_held(); },
    // -- client registry --
    [=](const client_heartbeat& hb) {
      fb->heartbeats.push_back(hb);
      fb->channels.push_back(
        caf::actor_cast<caf::actor_addr>(self->current_sender()));
      return registry_answer();
    },
    [=](const unregister_client_request& req) {
      fb->unregistrations.push_back(req);
      return registry_answer();
    },
    // -- pulls --
    [=](const pull_message_request& req)
      -> caf::typed_response_promise<pull_message_result> {
      auto rp = self->make_response_promise<pull_message_result>();
      fb->pulls.push_back(req);
      if (fb->fail_pulls) {
        rp.deliver(make_error(errc::system_busy, "fake broker: busy"));
        return rp;
      }
      if (fb->damaged.count({req.topic, req.queue_id, req.queue_offset}) != 0) {
        rp.deliver(make_error(errc::corrupt_data, "fake broker: damaged"));
        return rp;
      }
      auto res = fb->pull_answer(req);
      if (res.status == static_cast<uint8_t>(pull_status::no_new_msg)
          && (req.sys_flag & pull_sys_flag::suspend) != 0)
        fb->parked.push_back({req, rp});
      else
        rp.deliver(res);
      return rp;
    },
    [=](caf::tick_atom) {
      fb->wake();
      fb->release_locks();
    },
    [=](expire_atom) { fb->expire(); },
    // -- consumer offsets --
    [=](const query_offset_request& req) -> caf::result<int64_t> {
      fb->queries.push_back(req);
      auto i = fb->offsets.find({req.consumer_group, req.topic, req.queue_id});
      if (i == fb->offsets.end())
        return make_error(errc::query_not_found, "fake broker: no offset");
      return i->second;
    },
    [=](const update_offset_request& req) {
      fb->updates.push_back(req);
      fb->offsets[{req.consumer_group, req.topic, req.queue_id}]
        = req.commit_offset;
      return caf::ok_atom::value;
    },
    [=](const get_offset_request& req) {
      return queue_offsets{0, fb->max_offset(req.topic, req.queue_id)};
    },
    [=](const search_offset_request& req) {
      fb->searches.push_back(req);
      return fb->search_answer;
    },
    // -- members, send-backs, locks --
    [=](const get_consumer_list_request& req) -> caf::result<consumer_list> {
      ++fb->member_asks;
      if (fb->fail_members)
        return make_error(errc::system_error, "fake broker: members");
      return consumer_list{fb->members[req.group]};
    },
    [=](const consumer_send_back_request& req) -> caf::result<caf::ok_atom> {
      fb->send_backs.push_back(req);
      if (fb->fail_send_back)
        return make_error(errc::system_error, "fake broker: send-back");
      return caf::ok_atom::value;
    },
    [=](const lock_batch_request& req) {
      fb->locks.push_back(req);
      auto rp = self->make_response_promise<locked_queues>();
      if (fb->hold_locks)
        fb->held_locks.push_back({req, rp});
      else
        rp.deliver(locked_queues{
          fb->grant_locks ? req.queues : std::vector<client_queue>{}});
      return rp;
    },
    [=](const unlock_batch_request& req) {
      fb->unlocks.push_back(req);
      return caf::ok_atom::value;
    },
    [](dump_atom) { return std::string{"{}"}; },
  };
}

} // namespace rmq::test
