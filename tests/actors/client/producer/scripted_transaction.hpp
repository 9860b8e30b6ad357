// What the transaction producer's tests script besides the broker
// (tests/support/fake_broker.hpp): a transaction listener that answers by
// the message's body, and the half message of a check-back as a broker
// stores it.
#pragma once

#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/client/producer/transaction_listener.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/support/fake_broker.hpp"

namespace rmq::test {

/// Answers by the message's body: "commit", "rollback", "unknown", or
/// "throw" (it throws); records every call (the facade calls from worker
/// threads, hence the lock).
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

/// A half message as a broker stores it (at the fake broker's default
/// store host): on the half topic, with the real topic and queue in
/// REAL_TOPIC / REAL_QID, the group in PGROUP.
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
  stamp.store_ip = fake_store_ip;
  stamp.store_port = fake_store_port;
  std::string rec(record_size(sm), '\0');
  encode_record(sm, stamp, rec.data());
  return rec;
}

} // namespace rmq::test
