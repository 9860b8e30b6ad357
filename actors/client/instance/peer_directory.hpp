// The client instance's peer directory (RocketMQ NettyRemotingClient's
// channel table): one connection per broker or NameServer address, opened
// on first use with a bounded connect, shared by every actor of the
// instance, watched, and forgotten when it goes down.
//
// Concurrent connects to one address share one attempt. A lost peer is
// told to the listeners (`peer_lost_atom`), which refresh what they learnt
// through it; the next connect opens a new connection. A failed connect is
// not remembered beyond the dump: the next connect tries again.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caf/actor.hpp"
#include "caf/actor_addr.hpp"
#include "caf/actor_clock.hpp"
#include "caf/stateful_actor.hpp"
#include "caf/timespan.hpp"
#include "caf/typed_event_based_actor.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/client/client.hpp"

namespace rmq {

struct peer_directory_config {
  /// Bound of one connect (RocketMQ connectTimeoutMillis).
  caf::timespan connect_timeout = std::chrono::seconds{3};
  /// Answers `(connect_atom, host, port)` with `(node_id, strong_actor_ptr,
  /// std::set<std::string>)` or an error, as the middleman does. Null: the
  /// TLS-aware connector of runtime/net/connect.hpp. Tests pass a fake network.
  caf::actor connector;
};

/// One address as the directory knows it.
struct peer_entry {
  enum class status { connecting, connected, failed };
  status state = status::connecting;
  /// Set while connected.
  caf::strong_actor_ptr hdl;
  /// The interfaces the peer published (a broker or a NameServer).
  std::set<std::string> ifs;
  /// Who waits for the connect in flight.
  std::vector<caf::typed_response_promise<client_broker_actor>> brokers;
  std::vector<caf::typed_response_promise<client_namesrv_actor>> namesrvs;
  /// Of the last failed connect; empty once connected.
  std::string last_error;
  caf::error last_failure;
  caf::actor_clock::time_point failed_at;
  int64_t connects = 0;
  int64_t failures = 0;
  /// Bumped per attempt: the answer of a forgotten attempt is dropped.
  uint64_t attempt = 0;
};

struct peer_directory_state {
  peer_directory_config cfg;
  std::map<std::string, peer_entry> peers;
  std::vector<peer_listener_actor> listeners;
  uint64_t next_attempt = 0;
  /// Connects over the real network go through a tcp_prober first.
  bool probe = false;

  /// This actor's fields for its JSON dump (actors/common/dump.hpp).
  nlohmann::json dump_fields() const;

  static const char* name;
};

peer_directory_actor::behavior_type peer_directory(
  peer_directory_actor::stateful_pointer<peer_directory_state> self,
  peer_directory_config cfg);

} // namespace rmq
