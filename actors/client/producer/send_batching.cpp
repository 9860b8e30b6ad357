// Auto-batching (RocketMQ 5 ProduceAccumulator): async messages for a busy
// broker wait and go together in one batch request;
// actors/client/producer/send_loop_parts.hpp.
#include "actors/client/producer/send_loop_parts.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>
#include <sstream>
#include <utility>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/sec.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/client_message_codec.hpp"
#include "runtime/client/publish_queues.hpp"
#include "runtime/client/queue_selector.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/reply_message.hpp"
#include "runtime/net/host_port.hpp"

#include "actors/common/dump.hpp"

namespace rmq::send_loop_detail {

// -- auto-batching ------------------------------------------------------------

/// Sends what waits for `broker`: per topic one batch (bounded by
/// batch_max_messages / batch_max_bytes), and further full ones while
/// fewer than batch_max_in_flight requests are in flight; `everything`
/// sends every batch at once (shutdown).
void flush_queued(loop_ptr self, const std::string& broker, bool everything) {
  auto& st = self->state;
  auto by_topic = st.queued.find(broker);
  if (by_topic == st.queued.end())
    return;
  std::vector<std::vector<queued_async>> chunks;
  auto max_chunk = std::max<size_t>(1, st.cfg.batch_max_messages);
  auto in_flight = st.in_flight_by_broker[broker];
  for (auto& [topic, waiting] : by_topic->second) {
    // One batch per topic in any case; more while full ones wait and the
    // broker has room for them (batch_max_in_flight).
    for (bool first = true; !waiting.empty(); first = false) {
      size_t bytes = 0;
      size_t n = 0;
      while (n < waiting.size() && n < max_chunk
             && (n == 0 || bytes + waiting[n].size <= st.cfg.batch_max_bytes)) {
        bytes += waiting[n].size;
        ++n;
      }
      auto full = n == max_chunk || n < waiting.size();
      if (!everything && !first
          && (!full || in_flight + chunks.size() >= st.cfg.batch_max_in_flight))
        break;
      std::vector<queued_async> chunk;
      std::move(waiting.begin(), waiting.begin() + n,
                std::back_inserter(chunk));
      waiting.erase(waiting.begin(), waiting.begin() + n);
      chunks.push_back(std::move(chunk));
    }
  }
  for (auto i = by_topic->second.begin(); i != by_topic->second.end();) {
    if (i->second.empty())
      i = by_topic->second.erase(i);
    else
      ++i;
  }
  if (by_topic->second.empty())
    st.queued.erase(by_topic);
  for (auto& chunk : chunks) {
    send_loop_op op;
    op.mode = send_loop_op::kind::async;
    op.topic = chunk.front().msg.topic;
    op.first_queue = chunk.front().queue;
    op.attempts_total = 1 + std::max(0, st.cfg.async_retries);
    auto deadline = chunk.front().deadline;
    std::vector<client_message> msgs;
    for (auto& q : chunk) {
      deadline = std::min(deadline, q.deadline);
      op.uniq_keys.push_back(q.uniq_key);
      op.sizes.push_back(q.size);
      op.async_rps.push_back(q.rp);
      msgs.push_back(std::move(q.msg));
    }
    auto now_ms = wall_ms(st);
    if (msgs.size() == 1) {
      op.req = make_send_request(msgs.front(), op.uniq_keys.front(), now_ms,
                                 st.codec);
    } else {
      auto req = make_batch_request(msgs, op.uniq_keys, now_ms, st.codec, true);
      if (!req) {
        // Cannot happen for checked messages of one topic within the
        // bounds; answer rather than drop them if it does.
        for (auto& rp : op.async_rps)
          rp.deliver(req.error());
        st.failed += op.async_rps.size();
        release_async(st, op);
        continue;
      }
      op.req = std::move(*req);
      op.auto_batch = true;
      ++st.batches;
      st.batched_messages += msgs.size();
    }
    auto id = st.next_op++;
    op.started = self->clock().now();
    op.deadline = deadline;
    st.ops.emplace(id, std::move(op));
    attempt(self, id);
  }
}

} // namespace rmq::send_loop_detail
