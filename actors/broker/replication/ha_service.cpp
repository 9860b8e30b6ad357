#include "actors/broker/replication/ha_service.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/storage/replica_terms.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* ha_service_state::name = "ha_service";

namespace {

using self_ptr = ha_service_actor::stateful_pointer<ha_service_state>;

// The chunk for `req`, empty when the slave has everything.
caf::expected<replica_chunk> chunk_for(ha_service_state& st,
                                       const replica_chunk_request& req) {
  auto max = std::min(std::max(req.max_bytes, 1), st.opts.max_chunk);
  auto bytes = st.opts.store->read_log(req.from, static_cast<size_t>(max));
  if (!bytes)
    return std::move(bytes.error());
  replica_chunk out;
  out.from = req.from;
  out.bytes = std::move(*bytes);
  out.master_end = st.opts.store->write_offset();
  out.terms = storage::to_terms(st.opts.store->epochs());
  auto& s = st.slaves[req.broker_id];
  if (!out.bytes.empty()) {
    ++s.chunks;
    s.bytes += static_cast<int64_t>(out.bytes.size());
    if (st.clock)
      s.sent.add(st.clock->now().time_since_epoch(),
                 static_cast<int64_t>(out.bytes.size()));
  }
  return out;
}

// Answers the held asks that have something now, or whose wait passed.
void recheck(self_ptr self) {
  auto& st = self->state;
  // Asked for before reading: an append meanwhile notes it again.
  if (!st.waiting.empty())
    st.opts.store->want_replica_note();
  auto now = self->clock().now();
  std::vector<ha_service_state::held> still;
  for (auto& h : st.waiting) {
    auto chunk = chunk_for(st, h.req);
    if (!chunk)
      h.rp.deliver(std::move(chunk.error()));
    else if (!chunk->bytes.empty() || h.deadline <= now)
      h.rp.deliver(std::move(*chunk));
    else
      still.push_back(std::move(h));
  }
  st.waiting = std::move(still);
}

} // namespace

nlohmann::json ha_service_state::dump_fields() const {
  auto end = opts.store->write_offset();
  auto rows = nlohmann::json::array();
  int64_t in_sync_slaves = 0;
  auto& cfg = opts.store->config();
  for (auto& [id, s] : slaves) {
    // RocketMQ's in-sync test: heard from within haHousekeepingInterval
    // and no further behind than haMaxGapNotInSync.
    bool in_sync = false;
    int64_t ago_ms = -1;
    double speed = 0;
    if (clock) {
      auto now = clock->now();
      ago_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                 now - s.last_ask)
                 .count();
      in_sync = storage::slave_in_sync(cfg, end, s.acked, now - s.last_ask);
      speed = s.sent.rate(now.time_since_epoch(), 10);
    }
    in_sync_slaves += in_sync ? 1 : 0;
    rows.push_back({{"broker_id", id},
                    {"addr", s.addr},
                    {"acked_offset", s.acked},
                    {"lag_bytes", end - s.acked},
                    {"in_sync", in_sync},
                    {"from_where", s.from_where},
                    {"last_ask_ms_ago", ago_ms},
                    {"bytes_per_second", speed},
                    {"asks", s.asks},
                    {"chunks", s.chunks},
                    {"bytes", s.bytes}});
  }
  return {{"broker_name", opts.broker_name},  {"master_offset", end},
          {"in_sync_slaves", in_sync_slaves}, {"slaves", rows},
          {"held_asks", waiting.size()},      {"refused", refused}};
}

ha_service_actor::behavior_type
ha_service(ha_service_actor::stateful_pointer<ha_service_state> self,
           ha_service_options opts) {
  self->state.opts = std::move(opts);
  self->state.clock = &self->clock();
  return {
    [self](const replica_chunk_request& req)
      -> caf::typed_response_promise<replica_chunk> {
      auto& st = self->state;
      auto rp = self->make_response_promise<replica_chunk>();
      if (req.broker_name != st.opts.broker_name || req.broker_id < 1) {
        ++st.refused;
        RMQ_WARN("ha_service", "refused a slave of "
                                 << req.broker_name << " (id " << req.broker_id
                                 << "): this is the master of "
                                 << st.opts.broker_name);
        rp.deliver(make_error(errc::no_permission,
                              "this is the master of " + st.opts.broker_name
                                + ", not of " + req.broker_name + " (id "
                                + std::to_string(req.broker_id) + ")"));
        return rp;
      }
      if (!req.reconciled) {
        // A new connection's first ask: the master's terms and end, for
        // the slave to compare with its own before it copies anything;
        // its offset is no acknowledgement yet.
        replica_chunk hello;
        hello.from = req.from;
        hello.master_end = st.opts.store->write_offset();
        hello.terms = storage::to_terms(st.opts.store->epochs());
        rp.deliver(std::move(hello));
        return rp;
      }
      auto& s = st.slaves[req.broker_id];
      s.acked = req.from;
      s.addr = req.slave_addr;
      if (s.from_where < 0)
        s.from_where = req.from;
      ++s.asks;
      s.last_ask = self->clock().now();
      // Only SYNC_MASTER's writer waits for it.
      if (st.opts.writer && st.opts.store->config().sync_replication) {
        // Slaves gone quiet do not count (haHousekeepingInterval); the
        // writer applies the gap rule to its own end.
        auto& cfg = st.opts.store->config();
        auto now = self->clock().now();
        int64_t furthest = 0;
        for (auto& [id, x] : st.slaves)
          if (storage::slave_in_sync(cfg, x.acked, x.acked, now - x.last_ask))
            furthest = std::max(furthest, x.acked);
        self->send(st.opts.writer, replicated_atom::value, furthest);
      }
      auto chunk = chunk_for(st, req);
      if (!chunk) {
        rp.deliver(std::move(chunk.error()));
        return rp;
      }
      if (!chunk->bytes.empty() || req.wait_ms <= 0) {
        rp.deliver(std::move(*chunk));
        return rp;
      }
      // Held until the writer's next append notes it: asked for, then
      // read again, so an append in between is not missed.
      st.opts.store->want_replica_note();
      chunk = chunk_for(st, req);
      if (!chunk || !chunk->bytes.empty()) {
        if (chunk)
          rp.deliver(std::move(*chunk));
        else
          rp.deliver(std::move(chunk.error()));
        return rp;
      }
      auto wait
        = std::chrono::milliseconds{std::min(req.wait_ms, st.opts.max_wait_ms)};
      st.waiting.push_back({req, rp, self->clock().now() + wait});
      self->delayed_send(self, wait, tick_atom::value);
      return rp;
    },
    [self](tick_atom) { recheck(self); },
    dump_handler(self),
  };
}

} // namespace rmq
