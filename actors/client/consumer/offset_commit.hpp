// Committing consumed offsets, as RocketMQ's offset stores do: a
// broadcasting consumer writes them into its local offsets file
// (LocalFileOffsetStore#persistAll); a clustering one sends
// UPDATE_CONSUMER_OFFSET to each queue's master
// (RemoteBrokerOffsetStore#updateConsumeOffsetToBroker). The push and the
// lite pull consumer both commit through this.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "caf/error.hpp"
#include "caf/timespan.hpp"

#include "actors/client/instance/client_instance.hpp"
#include "actors/client/instance/master_cache.hpp"
#include "actors/client/instance/master_lookup.hpp"
#include "messages/client/client.hpp"
#include "runtime/client/local_offset_store.hpp"
#include "runtime/common/request_failure.hpp"

namespace rmq {

/// One queue's offset to commit.
struct queue_offset {
  message_queue mq;
  int64_t offset = 0;
};

/// Where a consumer commits: its group, its instance and master cache, and
/// its local offsets file when it is broadcasting (else null).
struct offset_commit_target {
  const client_instance* instance = nullptr;
  master_cache* masters = nullptr;
  local_offset_store* local = nullptr;
  std::string group;
  caf::timespan timeout;
  /// The log component of failures.
  const char* component = "consumer";
};

/// Commits `work`. `stored(q)` runs for each offset stored, `failed(q, err)`
/// for each not (after a WARN or debug line by log_request_failure), and
/// `done()` once every one was answered.
template <class Self>
void commit_offsets(
  Self* self, const offset_commit_target& t, std::vector<queue_offset> work,
  std::function<void(const queue_offset&)> stored,
  std::function<void(const queue_offset&, const caf::error&)> failed,
  std::function<void()> done) {
  auto text = [](const queue_offset& q) {
    return "commit of " + q.mq.topic + "@" + q.mq.broker_name + ":"
           + std::to_string(q.mq.queue_id);
  };
  if (work.empty()) {
    done();
    return;
  }
  if (t.local != nullptr) {
    std::vector<message_queue> written;
    for (auto& q : work) {
      t.local->update(q.mq, q.offset);
      written.push_back(q.mq);
    }
    auto err = t.local->persist(written);
    for (auto& q : work) {
      if (err) {
        log_request_failure(t.component, text(q), err);
        failed(q, err);
      } else {
        stored(q);
      }
    }
    done();
    return;
  }
  auto pending = std::make_shared<size_t>(work.size());
  auto one_done = [pending, done] {
    if (--*pending == 0)
      done();
  };
  for (auto& q : work) {
    auto fail = [=, component = t.component](const caf::error& err) {
      log_request_failure(component, text(q), err);
      failed(q, err);
      one_done();
    };
    update_offset_request req{t.group, q.mq.topic, q.mq.queue_id, q.offset};
    auto timeout = t.timeout;
    with_master_at(
      self, *t.instance, *t.masters, q.mq, timeout,
      [=](client_broker_actor broker, const std::string&) {
        self->request(broker, timeout, req)
          .then(
            [=](caf::ok_atom) {
              stored(q);
              one_done();
            },
            fail);
      },
      fail);
  }
}

} // namespace rmq
