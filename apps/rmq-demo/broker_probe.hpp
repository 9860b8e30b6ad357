// The demo's client of one broker, through the published broker_actor
// interface: creates a topic, reads max offsets and a group's consumers
// (sends batches and pulls queues too). Blocking calls from a scoped actor;
// the demo sends through the producer API and consumes in child processes.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/expected.hpp"
#include "caf/scoped_actor.hpp"

#include "messages/broker/broker.hpp"
#include "runtime/net/host_port.hpp"

namespace rmq::demo {

class broker_probe {
public:
  broker_probe(caf::actor_system& sys, host_port addr);

  /// Connects with a timeout; returns the reason on failure.
  caf::error connect(std::chrono::milliseconds timeout);

  /// UPDATE_AND_CREATE_TOPIC with `queues` read and write queues.
  caf::error create_topic(const std::string& topic, int32_t queues);

  /// Sends `bodies` as one batch to `queue`; answers the queue offset of
  /// the first one.
  caf::expected<int64_t> send_batch(const std::string& topic, int32_t queue,
                                    const std::vector<std::string>& bodies);

  /// Pulls from `offset` (holding the pull up to `suspend` when nothing is
  /// there, zero: no hold); answers the bodies and the next offset.
  struct pulled {
    std::vector<std::string> bodies;
    int64_t next_offset = 0;
  };
  caf::expected<pulled>
  pull(const std::string& topic, int32_t queue, int64_t offset,
       std::chrono::milliseconds suspend = std::chrono::milliseconds{0});

  /// The queue's max offset (how many messages it stored).
  caf::expected<int64_t> max_offset(const std::string& topic, int32_t queue);

  /// The client ids of a consumer group the broker knows (heartbeats).
  caf::expected<std::vector<std::string>> consumers(const std::string& group);

  const std::string& addr() const {
    return addr_;
  }

private:
  host_port where_;
  std::string addr_;
  caf::scoped_actor self_;
  broker_actor hdl_;
};

} // namespace rmq::demo
