// The requests rmq-bench's broker-facing benches issue over CAF: one
// plain send of a `body_size` body, a batch, or a pull walking a queue,
// answered into the load generator's done callback.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "apps/rmq-bench/load_generator.hpp"
#include "messages/broker/broker.hpp"

namespace rmq::bench {

/// A send of `body_size` bytes of 'b' to `topic`, queue `queue`.
send_message_request bench_send(const std::string& topic, int32_t queue,
                                size_t body_size);

/// Sends `req` (counting `msgs` messages) and calls `done` with the result.
void send_one(caf::event_based_actor* self, const broker_actor& broker,
              send_message_request req, uint64_t msgs, done_fn done);

/// Sends to queue 0 of `topic`: one message, or a batch of `msgs` when
/// `msgs` > 1, each `body_size` bytes.
issue_fn broker_send_request(const broker_actor& broker,
                             const std::string& topic, int msgs,
                             size_t body_size);

/// A pull of 32 messages of queue 0 of `topic` from `offset`.
pull_message_request bench_pull(const std::string& topic,
                                const std::string& group, int64_t offset);

/// Pulls walking queue 0 of `topic` from offset 0 in steps of 32, each
/// in-flight pull taking the next step, from 0 again past `max_offset`;
/// adds each answer's bytes to `reply_bytes`.
issue_fn broker_pull_request(const broker_actor& broker,
                             const std::string& topic, const std::string& group,
                             int64_t max_offset,
                             std::shared_ptr<uint64_t> reply_bytes);

} // namespace rmq::bench
