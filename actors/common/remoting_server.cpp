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
#include "caf/make_message.hpp"
#include "caf/scoped_actor.hpp"

#include "messages/common/common.hpp"
#include "runtime/common/log.hpp"
#include "runtime/net/connection_guard.hpp"
#include "runtime/net/tls_stream.hpp"
#include "runtime/remoting/deadline_list.hpp"
#include "runtime/remoting/stall_watch.hpp"

namespace rmq {

namespace {

using listen_atom = caf::atom_constant<caf::atom("listen")>;
using sweep_atom = caf::atom_constant<caf::atom("sweep")>;

// Bytes asked of a connection per read: a frame arrives in several reads,
// and the reader never holds more than one frame beyond them.
constexpr size_t read_chunk = 64 * 1024;

} // namespace

namespace detail {

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

// A request the server sent a client and awaits the answer of.
struct pending_ask {
  caf::response_promise promise;
  remoting::deadline_list<caf::actor_clock::time_point,
                          std::function<void()>>::id_type deadline;
};

struct server_state {
  remoting_server_options opts;
  remoting_handler handler;
  std::map<caf::io::connection_handle, connection> connections;
  uint64_t refused = 0;
  /// What runs when a deadline passes: a late answer to a client, an
  /// error for an ask of ours the client did not answer.
  remoting::deadline_list<caf::actor_clock::time_point, std::function<void()>>
    deadlines;
  /// By connection and opaque.
  std::map<std::pair<caf::io::connection_handle, int32_t>, pending_ask> asks;
};

struct reply_slot {
  caf::io::broker* self = nullptr;
  std::weak_ptr<server_state> server;
  caf::io::connection_handle hdl;
  bool oneway = false;
  bool answered = false;
  std::optional<uint64_t> deadline;
};

} // namespace detail

namespace {

using detail::connection;
using detail::server_state;

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

// Forgets a connection, stops its session actor and fails what the server
// asked on it.
void forget(server_state& st,
            std::map<caf::io::connection_handle, connection>::iterator i) {
  auto hdl = i->first;
  if (auto& session = i->second.peer.session; session && *session)
    caf::anon_send_exit(*session, caf::exit_reason::user_shutdown);
  st.connections.erase(i);
  auto a = st.asks.lower_bound(std::make_pair(hdl, INT32_MIN));
  while (a != st.asks.end() && a->first.first == hdl) {
    st.deadlines.take(a->second.deadline);
    a->second.promise.deliver(caf::make_error(
      caf::sec::request_receiver_down, "the client's connection closed"));
    a = st.asks.erase(a);
  }
}

// A client's answer to a request of the server's: to whoever asked.
void answered(server_state& st, caf::io::connection_handle hdl,
              const remoting::remoting_command& res) {
  auto i = st.asks.find(std::make_pair(hdl, res.opaque));
  if (i == st.asks.end())
    return; // too late, or an answer to a push: dropped
  st.deadlines.take(i->second.deadline);
  i->second.promise.deliver(remoting::encode_frame(res));
  st.asks.erase(i);
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
  for (auto& fire : st.deadlines.expire(now))
    fire();
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
    if (cmd->is_response()) {
      answered(*st, msg.handle, *cmd);
      continue;
    }
    ++conn.requests;
    auto slot = std::make_shared<detail::reply_slot>();
    slot->self = self;
    slot->server = st;
    slot->hdl = msg.handle;
    slot->oneway = cmd->is_oneway();
    st->handler(self, conn.peer, std::move(*cmd), remoting_reply{slot});
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
  // The sweep also keeps the requests' deadlines: at most a second late.
  caf::timespan sweep_every = std::min<caf::timespan>(
    std::min(st->opts.idle_timeout, st->opts.stall_timeout) / 4,
    std::chrono::seconds{1});
  // Sessions and asks end with the server.
  self->attach_functor([st] {
    while (!st->connections.empty())
      forget(*st, st->connections.begin());
    st->deadlines.clear();
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
    [=](remoting_ask_atom, uint64_t connection, const std::string& frame,
        int32_t opaque, caf::timespan timeout) -> caf::result<std::string> {
      caf::io::connection_handle hdl = caf::io::connection_handle::from_int(
        static_cast<int64_t>(connection));
      auto i = st->connections.find(hdl);
      if (i == st->connections.end())
        return caf::make_error(caf::sec::request_receiver_down,
                               "the client's connection closed");
      auto key = std::make_pair(hdl, opaque);
      auto deadline = st->deadlines.add(self->clock().now() + timeout, [st,
                                                                        key] {
        if (auto a = st->asks.find(key); a != st->asks.end()) {
          a->second.promise.deliver(caf::make_error(
            caf::sec::request_timeout, "the client did not answer in time"));
          st->asks.erase(a);
        }
      });
      auto rp = self->make_response_promise();
      st->asks[key] = detail::pending_ask{rp, deadline};
      write_bytes(self, hdl, i->second, frame);
      return caf::delegated<std::string>{};
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
      out["deadlines"] = st->deadlines.size();
      out["pendingAsks"] = st->asks.size();
      out["maxFrame"] = st->opts.max_frame;
      return out.dump();
    },
  };
}

} // namespace

remoting_reply::remoting_reply(std::shared_ptr<detail::reply_slot> slot)
  : slot_(std::move(slot)) {
}

void remoting_reply::operator()(remoting::remoting_command res) const {
  if (!slot_ || slot_->answered)
    return;
  slot_->answered = true;
  auto st = slot_->server.lock();
  if (!st)
    return;
  if (slot_->deadline)
    st->deadlines.take(*slot_->deadline);
  // The connection may be gone by the time the answer comes: written only
  // while it is known.
  if (!slot_->oneway)
    write_frame(slot_->self, *st, slot_->hdl, res);
}

void remoting_reply::expire_after(
  caf::timespan timeout,
  std::function<remoting::remoting_command()> late) const {
  if (!slot_ || slot_->answered || slot_->oneway || slot_->deadline)
    return;
  auto st = slot_->server.lock();
  if (!st)
    return;
  slot_->deadline = st->deadlines.add(slot_->self->clock().now() + timeout,
                                      [reply = *this, late = std::move(late)] {
                                        reply.slot_->deadline.reset();
                                        reply(late());
                                      });
}

namespace {

// Opaques of server-sent requests count down from the top: a client's own
// count up.
int32_t next_server_opaque() {
  static std::atomic<int32_t> next{INT32_MAX};
  return next--;
}

} // namespace

void remoting_push(const caf::actor& server, uint64_t connection,
                   remoting::remoting_command cmd) {
  cmd.opaque = next_server_opaque();
  caf::anon_send(server, remoting_push_atom::value, connection,
                 remoting::encode_frame(cmd));
}

caf::message remoting_ask(uint64_t connection, remoting::remoting_command cmd,
                          caf::timespan timeout) {
  cmd.opaque = next_server_opaque();
  return caf::make_message(remoting_ask_atom::value, connection,
                           remoting::encode_frame(cmd), cmd.opaque, timeout);
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
