// Concurrent consuming (RocketMQ ConsumeMessageConcurrentlyService);
// actors/client/consumer/push_consumer_parts.hpp.
#include "actors/client/consumer/push_consumer_parts.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/consume_from.hpp"
#include "runtime/client/received_message.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/common/validators.hpp"
#include "runtime/message/retry_topic.hpp"

#include "actors/client/consumer/offset_commit.hpp"
#include "actors/client/instance/master_lookup.hpp"
#include "actors/common/dump.hpp"

namespace rmq::push_consumer_detail {

// -- consuming: concurrent -------------------------------------------------------

void remove_consumed(self_ptr self, const message_queue& mq, int64_t gen,
                     const std::vector<int64_t>& offsets) {
  if (auto q = find_queue(self, mq, gen)) {
    q->pq.remove(offsets);
    resume(self, *q);
  }
}

/// Keeps a failed message for a local retry after local_retry_delay
/// (RocketMQ submitConsumeRequestLater): it stays in the process queue,
/// so the commit offset cannot pass it.
void retry_locally(self_ptr self, const message_queue& mq, int64_t gen,
                   std::vector<received_message> msgs) {
  auto& st = self->state;
  for (auto& m : msgs)
    ++m.reconsume_times;
  push_job job;
  job.mq = mq;
  job.generation = gen;
  job.msgs = std::move(msgs);
  auto at = self->clock().now() + st.opts.cfg.local_retry_delay;
  job.due = at;
  ++st.local_retries;
  st.later.push_back(std::move(job));
  arm(self, at);
}

/// CONSUMER_SEND_MSG_BACK for one message to its broker's master; `done`
/// gets whether the broker took it. `delay_level` -1 sends it to the
/// dead-letter queue at once (RocketMQ's rule).
void send_back(self_ptr self, const received_message& m, int32_t max_times,
               std::function<void(bool)> done, int32_t delay_level) {
  auto& st = self->state;
  consumer_send_back_request req;
  req.offset = m.commit_log_offset;
  req.group = st.opts.cfg.group;
  // 0: the broker's choice, 3 + reconsume times; -1: the dead letters.
  req.delay_level = delay_level;
  req.origin_msg_id = m.msg_id;
  req.origin_topic = m.topic;
  req.max_reconsume_times = max_times;
  auto timeout = st.opts.request_timeout;
  auto what = "send-back of " + m.msg_id;
  auto failed = [=](const caf::error& err) {
    ++self->state.send_back_failed;
    log_request_failure(component, what, err);
    done(false);
  };
  with_master(
    self, message_queue{m.topic, m.broker_name, m.queue_id},
    [=](client_broker_actor broker) {
      self->request(broker, timeout, req)
        .then(
          [=](caf::ok_atom) {
            ++self->state.sent_back;
            done(true);
          },
          failed);
    },
    failed);
}

/// `offsets`: the job's; `res.batch`: the messages of its slices that the
/// listener asked to retry (the rest were consumed).
void on_concurrent_result(self_ptr self, const message_queue& mq, int64_t gen,
                          const std::vector<int64_t>& offsets,
                          consume_result res) {
  auto& st = self->state;
  st.consumed_ok += res.calls - res.retried_calls;
  if (static_cast<consume_status>(res.status)
      == consume_status::consume_success) {
    remove_consumed(self, mq, gen, offsets);
    return;
  }
  st.consumed_retry += res.retried_calls;
  auto& msgs = res.batch;
  if (!clustering(self)) {
    // RocketMQ drops failed messages of broadcasting consumers.
    RMQ_WARN(component, "broadcasting: dropping " << msgs.size()
                                                  << " failed message(s) of "
                                                  << to_text(mq));
    remove_consumed(self, mq, gen, offsets);
    return;
  }
  if (msgs.size() < offsets.size()) {
    // The slices consumed are done now; the retried ones wait for their
    // send-back below.
    std::vector<int64_t> retried;
    retried.reserve(msgs.size());
    for (auto& m : msgs)
      retried.push_back(m.queue_offset);
    std::sort(retried.begin(), retried.end());
    std::vector<int64_t> done;
    done.reserve(offsets.size() - msgs.size());
    for (auto off : offsets)
      if (!std::binary_search(retried.begin(), retried.end(), off))
        done.push_back(off);
    remove_consumed(self, mq, gen, done);
  }
  auto max = st.opts.cfg.max_reconsume_times < 0
               ? default_max_reconsume
               : st.opts.cfg.max_reconsume_times;
  for (auto& m : msgs) {
    send_back(self, m, max, [=](bool ok) {
      if (ok)
        remove_consumed(self, mq, gen, {m.queue_offset});
      else if (find_queue(self, mq, gen) != nullptr && !self->state.stopping)
        retry_locally(self, mq, gen, {m});
    });
  }
}

} // namespace rmq::push_consumer_detail
