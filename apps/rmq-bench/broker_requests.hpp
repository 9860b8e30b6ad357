// The send requests rmq-bench's broker-facing benches issue over CAF: one
// plain send of a `body_size` body, or a batch, answered into the load
// generator's done callback.
#pragma once

#include <cstddef>
#include <cstdint>
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

} // namespace rmq::bench
