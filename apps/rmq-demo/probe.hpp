// The demo's own view of a NameServer, through the published namesrv_actor
// interface: fast enough to poll every few milliseconds, which running
// rmq-admin each time is not.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "caf/actor_system.hpp"
#include "caf/error.hpp"
#include "caf/scoped_actor.hpp"

#include "messages/namesrv/namesrv.hpp"
#include "runtime/net/host_port.hpp"

namespace rmq::demo {

class probe {
public:
  probe(caf::actor_system& sys, host_port addr);

  /// Connects with a timeout; returns the reason on failure.
  caf::error connect(std::chrono::milliseconds timeout);

  /// Returns whether the NameServer lists `broker_name` in its cluster info
  /// (nullopt if it did not answer).
  std::optional<bool> knows_broker(const std::string& broker_name);

  /// Returns the perm of `broker_name`'s queues of `topic`, -1 if the topic
  /// has no route, nullopt if the NameServer did not answer.
  std::optional<int32_t> perm_of(const std::string& topic,
                                 const std::string& broker_name);

  const std::string& addr() const {
    return addr_;
  }

private:
  host_port where_;
  std::string addr_;
  caf::scoped_actor self_;
  namesrv_actor hdl_;
};

} // namespace rmq::demo
