#include "actors/broker/replication/ha_client.hpp"

#include <chrono>
#include <utility>

#include <nlohmann/json.hpp>

#include "messages/broker/broker.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/net/connect.hpp"
#include "runtime/net/host_port.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* ha_client_state::name = "ha_client";

namespace {

using self_ptr = ha_client_actor::stateful_pointer<ha_client_state>;

void ask(self_ptr self);
void failed(self_ptr self, const std::string& what, const caf::error& err);

// Connects to the master's broker at `master_addr`, then asks.
void connect(self_ptr self) {
  auto& st = self->state;
  auto where = parse_host_port(st.master_addr);
  if (!where) {
    failed(self, "the master's address",
           make_error(errc::invalid_parameter,
                      "'" + st.master_addr + "' is no host:port"));
    return;
  }
  st.connecting = true;
  connect_async<broker_actor>(
    self, *where, st.opts.connect_timeout,
    [self, addr = st.master_addr](caf::expected<broker_actor> front) {
      auto& st = self->state;
      st.connecting = false;
      if (addr != st.master_addr)
        return; // another master was named meanwhile
      if (!front) {
        failed(self, "connecting to the master at " + addr, front.error());
        return;
      }
      st.opts.master = caf::actor_cast<replica_source_actor>(*front);
      st.reconciled = false;
      ++st.generation;
      if (st.opts.sync)
        self->send(st.opts.sync, caf::put_atom::value,
                   caf::actor_cast<metadata_source_actor>(*front));
      // A lost connection ends the held ask at once, not at its timeout
      // (CAF 0.17 leaves a request to a lost node to its timeout).
      self->monitor(*front);
      ask(self);
    });
}

// Logs a failure (once per kind) and retries after `retry`.
void note_failure(self_ptr self, const std::string& what,
                  const caf::error& err) {
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

// What was on its way failed: nothing is now.
void failed(self_ptr self, const std::string& what, const caf::error& err) {
  self->state.busy = false;
  note_failure(self, what, err);
}

void append(self_ptr self, replica_chunk chunk) {
  auto& st = self->state;
  auto size = static_cast<int64_t>(chunk.bytes.size());
  self
    ->request(st.opts.writer, st.opts.timeout, replica_atom::value,
              std::move(chunk))
    .then(
      [self, size](int64_t) {
        auto& st = self->state;
        ++st.chunks;
        st.bytes += size;
        st.last_write_ms = st.opts.wall_clock.now_ms();
        st.appended.add(self->clock().now().time_since_epoch(), size);
        self->state.busy = false;
        ask(self);
      },
      [self](const caf::error& err) {
        failed(self, "appending the master's chunk", err);
      });
}

// A new master's first answer: its terms and end. The writer compares
// them with the slave's and cuts what the master never had, or refuses.
void reconcile(self_ptr self, replica_chunk chunk) {
  auto& st = self->state;
  auto gen = st.generation;
  self
    ->request(st.opts.writer, st.opts.timeout, reconcile_atom::value,
              std::move(chunk))
    .then(
      [self, gen](int64_t from) {
        auto& st = self->state;
        st.busy = false;
        // With a master since lost, the next one is compared again.
        if (gen == st.generation) {
          st.reconciled = true;
          st.consistent_from = from;
        }
        ask(self);
      },
      [self](const caf::error& err) {
        ++self->state.refusals;
        failed(self, "comparing the slave's log with the master's terms", err);
      });
}

void ask(self_ptr self) {
  auto& st = self->state;
  if (!st.opts.master || st.busy)
    return; // the master is not known yet, or an ask is on its way
  st.busy = true;
  st.asking = true;
  auto gen = st.generation;
  replica_chunk_request req;
  req.broker_name = st.opts.broker_name;
  req.broker_id = st.opts.broker_id;
  req.from = st.opts.store->write_offset();
  req.max_bytes = st.opts.max_bytes;
  req.wait_ms = st.opts.wait_ms;
  req.reconciled = st.reconciled;
  req.slave_addr = st.opts.broker_addr;
  self
    ->request(st.opts.master,
              std::chrono::milliseconds{st.opts.wait_ms} + st.opts.timeout,
              std::move(req))
    .then(
      [self, gen](replica_chunk& chunk) {
        auto& st = self->state;
        if (gen != st.generation)
          return; // asked of a master since lost
        st.asking = false;
        st.master_end = chunk.master_end;
        st.last_read_ms = st.opts.wall_clock.now_ms();
        if (!st.last_error.empty()) {
          RMQ_INFO("ha_client", "copying from the master again");
          st.last_error.clear();
        }
        if (!st.reconciled) {
          reconcile(self, std::move(chunk));
        } else if (chunk.bytes.empty()) {
          st.busy = false;
          ask(self);
        } else {
          append(self, std::move(chunk));
        }
      },
      [self, gen](const caf::error& err) {
        if (gen != self->state.generation)
          return;
        self->state.asking = false;
        // A master found by address is connected to again: it may have
        // restarted, and a lost connection's handle stays lost.
        if (!self->state.master_addr.empty()) {
          self->state.opts.master = nullptr;
          self->state.reconciled = false;
        }
        failed(self, "asking the master for its log", err);
      });
}

} // namespace

nlohmann::json ha_client_state::dump_fields() const {
  auto end = opts.store->write_offset();
  return {{"broker_name", opts.broker_name},
          {"broker_id", opts.broker_id},
          {"master_addr", master_addr},
          {"slave_offset", end},
          {"master_offset", master_end},
          {"lag_bytes", std::max<int64_t>(0, master_end - end)},
          {"last_read_ms", last_read_ms},
          {"last_write_ms", last_write_ms},
          {"bytes_per_second",
           clock ? appended.rate(clock->now().time_since_epoch(), 10) : 0.0},
          {"reconciled", reconciled},
          {"consistent_from", consistent_from},
          {"refusals", refusals},
          {"chunks", chunks},
          {"bytes", bytes},
          {"failures", failures},
          {"last_error", last_error}};
}

ha_client_actor::behavior_type
ha_client(ha_client_actor::stateful_pointer<ha_client_state> self,
          ha_client_options opts) {
  self->state.opts = std::move(opts);
  self->state.clock = &self->clock();
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& st = self->state;
    if (!st.opts.master || dm.source != st.opts.master.address())
      return;
    st.opts.master = nullptr;
    st.reconciled = false;
    if (st.opts.sync)
      self->send(st.opts.sync, caf::put_atom::value, metadata_source_actor{});
    if (st.asking) {
      // Its answer will never come: forget the ask.
      st.asking = false;
      st.busy = false;
      ++st.generation;
    }
    // An append on its way still ends `busy` when it is done.
    note_failure(self, "the master's broker went away", dm.reason);
  });
  if (self->state.opts.master)
    self->monitor(self->state.opts.master);
  ask(self);
  return {
    [self](tick_atom) {
      auto& st = self->state;
      if (!st.opts.master && !st.master_addr.empty() && !st.connecting)
        connect(self);
      else
        ask(self);
    },
    [self](caf::connect_atom, const std::string& addr) {
      auto& st = self->state;
      if (addr == st.master_addr && (st.opts.master || st.connecting))
        return;
      if (addr != st.master_addr)
        RMQ_INFO("ha_client",
                 "the master of " << st.opts.broker_name << " is at " << addr);
      st.master_addr = addr;
      if (st.opts.master && st.opts.sync)
        self->send(st.opts.sync, caf::put_atom::value, metadata_source_actor{});
      st.opts.master = nullptr;
      st.reconciled = false;
      connect(self);
    },
    [self](caf::get_atom) {
      auto& st = self->state;
      return st.opts.master ? st.master_addr : std::string{};
    },
    dump_handler(self),
  };
}

} // namespace rmq
