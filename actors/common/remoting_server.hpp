// The remoting front door of a node (docs/remoting.md, "Serving"): one CAF
// io broker owns the listening socket and its connections, cuts each
// connection's bytes into commands (runtime/remoting/frame_codec) and
// hands every request to the node's handler, which answers it with the
// same typed messages our own clients send and writes the answer back on
// the connection the request came in on. A connection that sends a bad
// frame (over the limit, a lying length, a header that does not parse),
// stalls mid-frame or stays silent too long is closed and logged with its
// peer's address; the others go on. Time comes from the actor clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "caf/actor.hpp"
#include "caf/atom.hpp"
#include "caf/expected.hpp"
#include "caf/fwd.hpp"
#include "caf/io/broker.hpp"
#include "caf/io/fwd.hpp"
#include "caf/message.hpp"
#include "caf/sec.hpp"
#include "caf/timespan.hpp"

#include "runtime/net/tls_stream.hpp"
#include "runtime/remoting/frame_codec.hpp"
#include "runtime/remoting/remoting_command.hpp"

namespace rmq {

namespace detail {
struct reply_slot;
} // namespace detail

/// Writes the answer to one request: at most once (later answers are
/// dropped), nothing for a oneway request or a connection that closed
/// meanwhile. Called in the server broker only.
class remoting_reply {
public:
  remoting_reply() = default;
  explicit remoting_reply(std::shared_ptr<detail::reply_slot> slot);

  void operator()(remoting::remoting_command res) const;

  /// Unless answered within `timeout`, answers `late()` then. The server's
  /// sweep keeps the deadline (runtime/remoting/deadline_list), so it may
  /// fire up to one sweep late and costs no actor-clock timer.
  void expire_after(caf::timespan timeout,
                    std::function<remoting::remoting_command()> late) const;

private:
  std::shared_ptr<detail::reply_slot> slot_;
};

/// Where a request came from.
struct remoting_peer {
  /// The peer's address and port, as the connection sees them.
  std::string host;
  uint16_t port = 0;
  /// IPv4 address in host byte order, 0 when not IPv4 (a message's born
  /// host).
  uint32_t ipv4 = 0;
  /// The connection's number within its server (remoting_push).
  uint64_t connection = 0;
  /// An actor the handler may keep for the connection's life (a broker's
  /// client channel): the server stops it when the connection closes, so
  /// whoever monitors it learns of the close at once.
  std::shared_ptr<caf::actor> session;
};

/// `(remoting_push_atom, connection, frame)` to a server writes the frame
/// (encode_frame's bytes) on that connection while it is open: a node's
/// request to a client (see remoting_push).
using remoting_push_atom = caf::atom_constant<caf::atom("rpush")>;

/// Sends `cmd` to the client on `connection` of `server`, with an opaque
/// of its own.
void remoting_push(const caf::actor& server, uint64_t connection,
                   remoting::remoting_command cmd);

/// `(remoting_ask_atom, connection, frame, opaque, timeout)` to a server
/// writes the frame (a request with that opaque) on the connection and
/// answers the client's response frame (encode_frame's bytes) once it
/// comes; an error when the connection is unknown or closes first, or
/// nothing came within the timeout.
using remoting_ask_atom = caf::atom_constant<caf::atom("rask")>;

/// The message that asks the client on `connection` for `cmd` (see
/// remoting_ask_atom), with an opaque of its own.
caf::message remoting_ask(uint64_t connection, remoting::remoting_command cmd,
                          caf::timespan timeout);

/// A node's requests: runs in the server broker (`self`), which may
/// `request` the node's actors and answer from their replies.
using remoting_handler = std::function<void(
  caf::io::broker* self, const remoting_peer& peer,
  remoting::remoting_command request, remoting_reply reply)>;

/// Asks `dest` for `msg` (answered with a `Result`) within `timeout` and
/// answers the client with `ok(request, result)` or `fail(request,
/// error)`: the one way a node's handler turns a remoting request into a
/// typed request and back. `req` is taken by reference because call sites
/// read it for `msg` in the same call, and argument order is unspecified.
template <class Result, class Handle, class Msg, class Ok, class Fail>
void ask_and_reply(caf::io::broker* self, const Handle& dest, Msg msg,
                   const remoting::remoting_command& req, remoting_reply reply,
                   caf::timespan timeout, Ok ok, Fail fail) {
  // One copy of what the answer needs, shared by both outcomes; `ok` may
  // take the result by value (a pull's records move into the body).
  auto ctx
    = std::make_shared<std::pair<remoting::remoting_command, remoting_reply>>(
      remoting::reply_stub(req), std::move(reply));
  ctx->second.expire_after(timeout, [ctx, fail] {
    return fail(ctx->first, caf::make_error(caf::sec::request_timeout));
  });
  // No CAF timeout: the deadline above answers the client, and `dest`,
  // a local actor, answers or fails every request it takes.
  self->request(dest, caf::infinite, std::move(msg))
    .then([ctx, ok](Result& x) { ctx->second(ok(ctx->first, std::move(x))); },
          [ctx, fail](const caf::error& err) {
            ctx->second(fail(ctx->first, err));
          });
}

struct remoting_server_options {
  /// For the log: "namesrv", "broker".
  std::string name = "remoting";
  /// RocketMQ's frameMaxLength.
  size_t max_frame = remoting::default_max_frame;
  /// A connection with no byte in either direction this long is closed
  /// (RocketMQ's serverChannelMaxIdleTimeSeconds). Clients heartbeat every
  /// 30 s and hold pulls for at most 30 s.
  caf::timespan idle_timeout = std::chrono::seconds{120};
  /// A frame begun and not finished within this closes its connection: a
  /// peer that stalls mid-frame holds a buffer for nothing.
  caf::timespan stall_timeout = std::chrono::seconds{10};
  /// Mutual TLS on every connection (`--tls-dir`); none: plain TCP.
  std::shared_ptr<tls_context> tls;
};

/// Spawns the front door and binds it to `host`:`port` (0 picks a free
/// one); answers the server and the bound port.
caf::expected<std::pair<caf::actor, uint16_t>>
start_remoting_server(caf::actor_system& sys, const std::string& host,
                      uint16_t port, remoting_server_options opts,
                      remoting_handler handler);

} // namespace rmq
