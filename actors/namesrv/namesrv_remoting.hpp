// The NameServer's remoting requests (docs/remoting.md, "NameServer"):
// each becomes the typed request our own clients send to the NameServer's
// frontend, and its answer the response RocketMQ's NameServer gives.
#pragma once

#include "actors/common/remoting_server.hpp"
#include "messages/namesrv/namesrv.hpp"

namespace rmq {

/// The handler for start_remoting_server: serves `ns`'s requests.
remoting_handler namesrv_remoting(namesrv_actor ns);

} // namespace rmq
