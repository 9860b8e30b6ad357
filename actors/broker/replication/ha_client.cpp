#include "actors/broker/replication/ha_client.hpp"

#include <chrono>
#include <utility>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* ha_client_state::name = "ha_client";

namespace {

using self_ptr = ha_client_actor::stateful_pointer<ha_client_state>;

void ask(self_ptr self);

void failed(self_ptr self, const std::string& what, const caf::error& err) {
  auto& st = self->state;
  ++st.failures;
  auto why = what + ": " + describe(err);
  if (why != st.last_error)
    RMQ_WARN("ha_client",
             why << "; retrying every "
                 << std::chrono::duration_cast<std::chrono::milliseconds>(
                      st.opts.retry)
                      .count()
                 << " ms");
  st.last_error = std::move(why);
  self->delayed_send(self, st.opts.retry, tick_atom::value);
}

void append(self_ptr self, replica_chunk chunk) {
  auto& st = self->state;
  auto size = static_cast<int64_t>(chunk.bytes.size());
  self
    ->request(st.opts.writer, st.opts.timeout, replica_atom::value, chunk.from,
              std::move(chunk.bytes))
    .then(
      [self, size](int64_t) {
        ++self->state.chunks;
        self->state.bytes += size;
        ask(self);
      },
      [self](const caf::error& err) {
        failed(self, "appending the master's chunk", err);
      });
}

void ask(self_ptr self) {
  auto& st = self->state;
  replica_chunk_request req;
  req.broker_name = st.opts.broker_name;
  req.broker_id = st.opts.broker_id;
  req.from = st.opts.store->write_offset();
  req.max_bytes = st.opts.max_bytes;
  req.wait_ms = st.opts.wait_ms;
  self
    ->request(st.opts.master,
              std::chrono::milliseconds{st.opts.wait_ms} + st.opts.timeout,
              std::move(req))
    .then(
      [self](replica_chunk& chunk) {
        auto& st = self->state;
        st.master_end = chunk.master_end;
        if (!st.last_error.empty()) {
          RMQ_INFO("ha_client", "copying from the master again");
          st.last_error.clear();
        }
        if (chunk.bytes.empty())
          ask(self);
        else
          append(self, std::move(chunk));
      },
      [self](const caf::error& err) {
        failed(self, "asking the master for its log", err);
      });
}

} // namespace

nlohmann::json ha_client_state::dump_fields() const {
  auto end = opts.store->write_offset();
  return {{"broker_name", opts.broker_name},
          {"broker_id", opts.broker_id},
          {"slave_offset", end},
          {"master_offset", master_end},
          {"lag_bytes", std::max<int64_t>(0, master_end - end)},
          {"chunks", chunks},
          {"bytes", bytes},
          {"failures", failures},
          {"last_error", last_error}};
}

ha_client_actor::behavior_type
ha_client(ha_client_actor::stateful_pointer<ha_client_state> self,
          ha_client_options opts) {
  self->state.opts = std::move(opts);
  ask(self);
  return {
    [self](tick_atom) { ask(self); },
    dump_handler(self),
  };
}

} // namespace rmq
