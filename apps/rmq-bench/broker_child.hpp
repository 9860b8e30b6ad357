// A broker process started by a bench (`rmq-node --role=broker` on a free
// port with a fresh store directory, removed afterwards), and the
// connection to its front and to the bench echo actor it registers: the
// same-run CAF baseline every broker-facing figure is held against.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "caf/actor.hpp"
#include "caf/actor_system.hpp"
#include "caf/scoped_actor.hpp"

#include "messages/broker/broker.hpp"
#include "runtime/process/child_process.hpp"

namespace rmq::bench {

struct broker_child {
  std::unique_ptr<child_process> proc;
  std::string name;
  std::string address;
  std::string dir;
  /// SIGTERM (waits up to 30 s), then removes the store directory.
  ~broker_child();
};

/// Starts broker `name` with `flush` (ASYNC_FLUSH / SYNC_FLUSH), its store
/// under `parent`, registering with `namesrv` ("" for none); null on
/// failure (printed).
std::unique_ptr<broker_child>
start_broker(const std::string& name, const std::string& flush,
             const std::string& parent, const std::string& namesrv = "",
             const std::vector<std::string>& extra_args = {});

struct broker_connection {
  broker_actor broker;
  /// The broker process's bench echo actor (actors/common/bench_echo.hpp).
  caf::actor echo;
};

/// Creates or updates `name` with `queues` read and write queues on the
/// broker (UPDATE_AND_CREATE_TOPIC); false (printed) on failure.
bool create_topic(caf::scoped_actor& self, const broker_actor& broker,
                  const std::string& name, int32_t queues);

/// Connects to the broker at `address` and looks up its echo actor over
/// the same connection; nullopt on failure (printed).
std::optional<broker_connection> connect_broker(caf::actor_system& sys,
                                                const std::string& address);

} // namespace rmq::bench
