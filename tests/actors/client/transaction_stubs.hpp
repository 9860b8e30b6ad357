// Stand-ins for the transaction producer's tests: a broker that stores
// half messages (answering with real offsetMsgIds) and records the
// END_TRANSACTION requests it gets, a scripted transaction listener, and a
// check-back's half message in the store's record encoding.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "caf/stateful_actor.hpp"
#include "caf/typed_event_based_actor.hpp"

#include "actors/client/producer/transaction_listener.hpp"
#include "messages/client/client.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/actors/client/client_stubs.hpp"

namespace rmq::test::txn_stubs {

// -- broker -------------------------------------------------------------------

/// The stub's store host (127.0.0.1:10911 in offsetMsgIds).
constexpr uint32_t store_ip = 0x7F000001;
constexpr uint32_t store_port = 10911;

/// Where the stub stores its n-th message in the commit log.
inline int64_t commit_offset_of(int64_t queue_offset) {
  return 5000 + queue_offset * 250;
}

struct broker_script {
  /// Answer sends with this status, or fail them with `error`.
  uint8_t status = 0;
  caf::error error;
  std::vector<send_message_request> sends;
  std::vector<end_transaction_request> ends;
  /// ends.size(), readable from another thread (facade tests).
  std::atomic<size_t> end_count{0};
  int64_t next_offset = 0;
};

using broker_actor
  = client_broker_actor::extend<caf::reacts_to<end_transaction_request>>;

struct broker_state {
  std::shared_ptr<broker_script> script;
};

/// For the tests (txn_stubs::property_of).
using test::property_of;

inline broker_actor::behavior_type
broker(broker_actor::stateful_pointer<broker_state> self,
       std::shared_ptr<broker_script> script) {
  self->state.script = std::move(script);
  return refusing_consumer_requests<broker_actor>(
    [=](dump_atom) { return std::string{"{}"}; },
    [=](const send_message_request& req) -> caf::result<send_result> {
      auto& s = *self->state.script;
      s.sends.push_back(req);
      if (s.error)
        return s.error;
      send_result res;
      res.status = s.status;
      res.queue_id = req.queue_id;
      res.queue_offset = s.next_offset++;
      res.msg_id = property_of(req.properties, property_uniq_key);
      res.offset_msg_id = encode_offset_msg_id(
        store_ip, store_port, commit_offset_of(res.queue_offset));
      res.queue_offsets.push_back(res.queue_offset);
      return res;
    },
    [=](const end_transaction_request& req) {
      self->state.script->ends.push_back(req);
      ++self->state.script->end_count;
    },
    [=](const client_heartbeat&) { return caf::ok_atom::value; },
    [=](const unregister_client_request&) { return caf::ok_atom::value; });
}

// -- listener -----------------------------------------------------------------

/// Answers by the message's body: "commit", "rollback", "unknown", or
/// "throw" (it throws); records every call.
class scripted_listener : public transaction_listener {
public:
  struct execute_call {
    client_message msg;
    std::string arg;
  };

  transaction_state execute_local_transaction(const client_message& msg,
                                              const std::string& arg) override {
    {
      std::lock_guard<std::mutex> guard{mtx};
      executed.push_back({msg, arg});
    }
    return answer(msg.body);
  }

  transaction_state
  check_local_transaction(const received_message& msg) override {
    {
      std::lock_guard<std::mutex> guard{mtx};
      checked.push_back(msg);
    }
    return answer(msg.body);
  }

  static transaction_state answer(const std::string& body) {
    if (body == "throw")
      throw std::runtime_error("listener failure");
    if (body == "commit")
      return transaction_state::commit;
    if (body == "rollback")
      return transaction_state::rollback;
    return transaction_state::unknown;
  }

  std::mutex mtx;
  std::vector<execute_call> executed;
  std::vector<received_message> checked;
};

// -- check-backs --------------------------------------------------------------

/// A half message as a broker stores it: on the half topic, with the
/// real topic and queue in REAL_TOPIC / REAL_QID, the group in PGROUP.
inline std::string
half_record(const std::string& topic, const std::string& body,
            const std::string& uniq_key, const std::string& group,
            int64_t queue_offset, int64_t commit_offset) {
  store_message sm;
  sm.topic = "RMQ_SYS_TRANS_HALF_TOPIC";
  sm.queue_id = 0;
  sm.body = body;
  sm.sys_flag = 0x4; // TRANSACTION_PREPARED_TYPE
  property_list props{{"UNIQ_KEY", uniq_key},
                      {"TRAN_MSG", "true"},
                      {"PGROUP", group},
                      {"REAL_TOPIC", topic},
                      {"REAL_QID", "3"}};
  sm.properties = encode_properties(props);
  record_stamp stamp;
  stamp.queue_offset = queue_offset;
  stamp.phys_offset = commit_offset;
  stamp.store_timestamp = 1700000000000;
  stamp.store_ip = store_ip;
  stamp.store_port = store_port;
  std::string rec(record_size(sm), '\0');
  encode_record(sm, stamp, rec.data());
  return rec;
}

} // namespace rmq::test::txn_stubs
