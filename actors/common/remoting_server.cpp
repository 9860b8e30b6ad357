#include "actors/common/remoting_server.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <arpa/inet.h>

#include <nlohmann/json.hpp>

#include "caf/actor_clock.hpp"
#include "caf/actor_system.hpp"
#include "caf/deep_to_string.hpp"
#include "caf/io/broker.hpp"
#include "caf/io/middleman.hpp"
#include "caf/scoped_actor.hpp"

#include "messages/common/common.hpp"
#include "runtime/common/log.hpp"
#include "runtime/net/connection_guard.hpp"
#include "runtime/net/tls_stream.hpp"
#include "runtime/remoting/stall_watch.hpp"

namespace rmq {

namespace {

using listen_atom = caf::atom_constant<caf::atom("listen")>;
using sweep_atom = caf::atom_constant<caf::atom("sweep")>;

// Bytes asked of a connection per read: a frame arrives in several reads,
// and the reader never holds more than one frame beyond them.
constexpr size_t read_chunk = 64 * 1024;

struct connection {
  remoting::frame_reader reader;
  remoting_peer peer;
  /// Under TLS: the connection's session (runtime/net/tls_stream).
  std::unique_ptr<tls_stream> tls;
  uint64_t requests = 0;
  /// Last byte read or written.
  caf::actor_clock::time_point active;
  remoting::stall_watch<caf::actor_clock::time_point> stall;
};

struct server_state {
  remoting_server_options opts;
  remoting_handler handler;
  std::map<caf::io::connection_handle, connection> connections;
  uint64_t refused = 0;
};

// Writes `head` and `body` (a frame, or frames and nothing) on a known
// connection, through its TLS session when it has one: straight into the
// connection's buffer otherwise, so a pull's records are copied once.
void write_bytes(caf::io::broker* self, caf::io::connection_handle hdl,
                 connection& conn, std::string_view head,
                 std::string_view body = {}) {
  conn.active = self->clock().now();
  if (!conn.tls) {
    self->write(hdl, head.size(), head.data());
    if (!body.empty())
      self->write(hdl, body.size(), body.data());
  } else {
    std::string cipher;
    conn.tls->write(head);
    conn.tls->write(body);
    conn.tls->drain(cipher);
    self->write(hdl, cipher.size(), cipher.data());
  }
  self->flush(hdl);
}

void write_frame(caf::io::broker* self, server_state& st,
                 caf::io::connection_handle hdl,
                 const remoting::remoting_command& cmd) {
  auto i = st.connections.find(hdl);
  if (i != st.connections.end())
    write_bytes(self, hdl, i->second, remoting::encode_frame_head(cmd),
                cmd.body);
}

// Forgets a connection and stops its session actor.
void forget(server_state& st,
            std::map<caf::io::connection_handle, connection>::iterator i) {
  if (auto& session = i->second.peer.session; session && *session)
    caf::anon_send_exit(*session, caf::exit_reason::user_shutdown);
  st.connections.erase(i);
}

void drop(caf::io::broker* self, server_state& st,
          caf::io::connection_handle hdl, const std::string& why) {
  auto i = st.connections.find(hdl);
  if (i == st.connections.end())
    return;
  RMQ_WARN(st.opts.name.c_str(), "remoting: closing the connection of "
                                   << i->second.peer.host << ":"
                                   << i->second.peer.port << ": " << why);
  ++st.refused;
  self->close(hdl);
  forget(st, i);
}

// Closes the connections that stalled mid-frame or went silent.
void sweep(caf::io::broker* self, server_state& st) {
  auto now = self->clock().now();
  std::vector<std::pair<caf::io::connection_handle, std::string>> stale;
  for (auto& [hdl, conn] : st.connections) {
    auto& begun = conn.stall.begun();
    if (begun && now - *begun >= st.opts.stall_timeout)
      stale.emplace_back(hdl, "a frame unfinished after "
                                + caf::deep_to_string(st.opts.stall_timeout));
    else if (now - conn.active >= st.opts.idle_timeout)
      stale.emplace_back(hdl, "silent for "
                                + caf::deep_to_string(st.opts.idle_timeout));
  }
  for (auto& [hdl, why] : stale)
    drop(self, st, hdl, why);
}

void on_data(caf::io::broker* self, std::shared_ptr<server_state> st,
             const caf::io::new_data_msg& msg) {
  auto i = st->connections.find(msg.handle);
  if (i == st->connections.end())
    return;
  auto& conn = i->second;
  conn.active = self->clock().now();
  std::string_view bytes{msg.buf.data(), msg.buf.size()};
  std::string plain;
  if (conn.tls) {
    bool ok = conn.tls->feed(bytes, plain);
    std::string cipher; // the handshake's answers, alerts
    conn.tls->drain(cipher);
    if (!cipher.empty()) {
      self->write(msg.handle, cipher.size(), cipher.data());
      self->flush(msg.handle);
    }
    if (!ok)
      return drop(self, *st, msg.handle, conn.tls->error());
    bytes = plain;
  }
  conn.reader.feed(bytes);
  size_t decoded = 0;
  while (auto cmd = conn.reader.next()) {
    ++decoded;
    // A client's answer to what a node pushed it (remoting_push) is not
    // waited for: dropped.
    if (cmd->is_response())
      continue;
    ++conn.requests;
    auto hdl = msg.handle;
    bool oneway = cmd->is_oneway();
    // The connection may be gone by the time the answer comes: write
    // only while it is known.
    auto reply = [self, st, hdl, oneway](remoting::remoting_command res) {
      if (!oneway)
        write_frame(self, *st, hdl, res);
    };
    st->handler(self, conn.peer, std::move(*cmd), std::move(reply));
  }
  // The handler may have closed connections: look this one up again.
  i = st->connections.find(msg.handle);
  if (i == st->connections.end())
    return;
  if (i->second.reader.failed())
    return drop(self, *st, msg.handle, i->second.reader.error());
  i->second.stall.after_read(i->second.reader, decoded, i->second.active);
}

caf::behavior remoting_server(caf::io::broker* self,
                              std::shared_ptr<server_state> st) {
  auto sweep_every = std::min(st->opts.idle_timeout, st->opts.stall_timeout)
                     / 4;
  // Sessions end with the server.
  self->attach_functor([st] {
    for (auto& [hdl, conn] : st->connections)
      if (conn.peer.session && *conn.peer.session)
        caf::anon_send_exit(*conn.peer.session,
                            caf::exit_reason::user_shutdown);
  });
  self->delayed_send(self, sweep_every, sweep_atom::value);
  return {
    [=](sweep_atom) {
      sweep(self, *st);
      self->delayed_send(self, sweep_every, sweep_atom::value);
    },
    [=](listen_atom, const std::string& host,
        uint16_t port) -> caf::result<uint16_t> {
      // SO_REUSEADDR, as publish() does for the CAF port.
      auto res = self->add_tcp_doorman(port, host.c_str(), true);
      if (!res)
        return std::move(res.error());
      // The guard of the CAF ports must not read these frames as BASP.
      // CAF 0.17's default multiplexer names a doorman by its socket.
      connection_guard::not_basp(static_cast<int>(res->first.id()));
      return res->second;
    },
    [=](const caf::io::new_connection_msg& msg) {
      remoting_peer peer;
      peer.host = self->remote_addr(msg.handle);
      peer.port = self->remote_port(msg.handle);
      in_addr a{};
      if (inet_pton(AF_INET, peer.host.c_str(), &a) == 1)
        peer.ipv4 = ntohl(a.s_addr);
      peer.connection = static_cast<uint64_t>(msg.handle.id());
      peer.session = std::make_shared<caf::actor>();
      connection conn{remoting::frame_reader{st->opts.max_frame},
                      std::move(peer),
                      nullptr,
                      0,
                      self->clock().now(),
                      {}};
      if (st->opts.tls)
        conn.tls = std::make_unique<tls_stream>(st->opts.tls);
      st->connections.emplace(msg.handle, std::move(conn));
      self->configure_read(msg.handle,
                           caf::io::receive_policy::at_most(read_chunk));
    },
    [=](const caf::io::new_data_msg& msg) { on_data(self, st, msg); },
    [=](const caf::io::connection_closed_msg& msg) {
      if (auto i = st->connections.find(msg.handle); i != st->connections.end())
        forget(*st, i);
    },
    [=](remoting_push_atom, uint64_t connection, const std::string& frame) {
      caf::io::connection_handle hdl = caf::io::connection_handle::from_int(
        static_cast<int64_t>(connection));
      auto i = st->connections.find(hdl);
      if (i != st->connections.end())
        write_bytes(self, hdl, i->second, frame);
    },
    [=](const caf::io::acceptor_closed_msg&) {
      RMQ_WARN(st->opts.name.c_str(), "remoting: the listening socket closed");
    },
    [=](dump_atom) {
      nlohmann::json out;
      out["connections"] = nlohmann::json::array();
      for (auto& [hdl, conn] : st->connections)
        out["connections"].push_back(
          {{"peer", conn.peer.host + ":" + std::to_string(conn.peer.port)},
           {"requests", conn.requests},
           {"buffered", conn.reader.buffered()},
           {"tls", conn.tls != nullptr}});
      out["refusedConnections"] = st->refused;
      out["maxFrame"] = st->opts.max_frame;
      return out.dump();
    },
  };
}

} // namespace

void remoting_push(const caf::actor& server, uint64_t connection,
                   remoting::remoting_command cmd) {
  // Opaques of server-sent requests count down from the top: a client's
  // own count up, and answers to these are dropped anyway.
  static std::atomic<int32_t> next{INT32_MAX};
  cmd.opaque = next--;
  caf::anon_send(server, remoting_push_atom::value, connection,
                 remoting::encode_frame(cmd));
}

caf::expected<std::pair<caf::actor, uint16_t>>
start_remoting_server(caf::actor_system& sys, const std::string& host,
                      uint16_t port, remoting_server_options opts,
                      remoting_handler handler) {
  auto st = std::make_shared<server_state>();
  st->opts = std::move(opts);
  st->handler = std::move(handler);
  auto server = sys.middleman().spawn_broker(remoting_server, st);
  caf::scoped_actor self{sys};
  caf::expected<std::pair<caf::actor, uint16_t>> out{
    caf::make_error(caf::sec::runtime_error)};
  self->request(server, caf::infinite, listen_atom::value, host, port)
    .receive([&](uint16_t bound) { out = std::make_pair(server, bound); },
             [&](caf::error& err) {
               self->send_exit(server, caf::exit_reason::user_shutdown);
               out = std::move(err);
             });
  return out;
}

} // namespace rmq
