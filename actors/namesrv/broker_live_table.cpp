#include "actors/namesrv/broker_live_table.hpp"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* broker_live_table_state::name = "broker_live_table";

namespace {

int64_t to_ms(caf::timespan x) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(x).count();
}

unregistration make_unregistration(const broker_live_table_state::key_type& k,
                                   const broker_live_table_state::entry& e,
                                   const char* reason) {
  return {{k.first, k.second, e.broker_name, e.broker_id}, e.seq, reason};
}

} // namespace

void broker_live_table_state::put(const register_broker_request& req,
                                  caf::actor_addr channel, time_point now) {
  auto& e = entries[{req.cluster_name, req.broker_addr}];
  e.broker_name = req.broker_name;
  e.broker_id = req.broker_id;
  e.last_update = now;
  e.timeout = caf::timespan{
    std::chrono::milliseconds{std::max<int64_t>(req.heartbeat_timeout_ms, 0)}};
  e.version = req.version;
  e.ha_server_addr = req.ha_server_addr;
  if (channel)
    e.channel = std::move(channel);
  e.seq = ++last_seq;
  e.reported = false;
}

bool broker_live_table_state::touch(const std::string& cluster,
                                    const std::string& addr, time_point now) {
  auto i = entries.find({cluster, addr});
  if (i == entries.end())
    return false;
  i->second.last_update = now;
  i->second.seq = ++last_seq;
  i->second.reported = false;
  return true;
}

unregistration
broker_live_table_state::stamp(const unregister_broker_request& req) {
  // Does not mark the entry as reported: the batcher may still refuse the
  // request (queue_full), and a reported entry is never expired by the scan.
  // A duplicate expiry is harmless, the second removal finds nothing.
  auto i = entries.find({req.cluster_name, req.broker_addr});
  auto token = i != entries.end() ? i->second.seq : last_seq;
  return {req, token, "request"};
}

std::vector<unregistration> broker_live_table_state::expire(time_point now) {
  std::vector<unregistration> result;
  for (auto& [key, e] : entries)
    if (!e.reported && e.last_update + timeout_of(e) < now) {
      e.reported = true;
      ++expired_total;
      result.push_back(make_unregistration(key, e, "expired"));
    }
  return result;
}

std::vector<unregistration>
broker_live_table_state::lost(const caf::actor_addr& channel) {
  std::vector<unregistration> result;
  for (auto& [key, e] : entries)
    if (!e.reported && e.channel == channel) {
      e.reported = true;
      result.push_back(make_unregistration(key, e, "connection lost"));
    }
  return result;
}

size_t broker_live_table_state::unreport() {
  // Entries whose unregistration is still queued are reported twice, which
  // is harmless (see stamp); one whose report was lost would otherwise
  // never be unregistered.
  size_t n = 0;
  for (auto& kvp : entries)
    if (kvp.second.reported) {
      kvp.second.reported = false;
      ++n;
    }
  return n;
}

std::vector<unregister_broker_request>
broker_live_table_state::remove(const std::vector<unregistration>& batch) {
  std::vector<unregister_broker_request> applied;
  for (auto& x : batch) {
    auto i = entries.find({x.request.cluster_name, x.request.broker_addr});
    if (i != entries.end()) {
      if (i->second.seq > x.token) {
        // The broker spoke after this was queued: it is alive, keep it.
        ++stale_skipped_total;
        continue;
      }
      entries.erase(i);
    }
    applied.push_back(x.request);
  }
  return applied;
}

nlohmann::json broker_live_table_state::dump_fields(time_point now) const {
  auto rows = nlohmann::json::array();
  for (auto& [key, e] : entries)
    rows.push_back({{"cluster_name", key.first},
                    {"broker_addr", key.second},
                    {"broker_name", e.broker_name},
                    {"broker_id", e.broker_id},
                    {"idle_ms", to_ms(now - e.last_update)},
                    {"timeout_ms", to_ms(timeout_of(e))},
                    {"data_version", e.version},
                    {"ha_server_addr", e.ha_server_addr},
                    {"channel", e.channel ? caf::to_string(e.channel) : ""},
                    {"seq", e.seq},
                    {"unregistration_queued", e.reported}});
  return {{"default_timeout_ms", to_ms(default_timeout)},
          {"expired_total", expired_total},
          {"stale_unregistrations_skipped", stale_skipped_total},
          {"brokers", rows}};
}

broker_live_table_actor::behavior_type broker_live_table(
  broker_live_table_actor::stateful_pointer<broker_live_table_state> self,
  caf::timespan default_timeout) {
  self->state.default_timeout = default_timeout;
  // Time only comes from the actor clock: it is virtual under tests.
  auto now = [self] { return self->clock().now(); };
  return {
    [=](caf::put_atom, const register_broker_request& req,
        const caf::actor_addr& channel) {
      self->state.put(req, channel, now());
    },
    [=](caf::get_atom, const std::string& cluster,
        const std::vector<std::string>& addrs) {
      std::vector<live_summary> result;
      for (auto& addr : addrs) {
        live_summary row{addr, false, {}, {}};
        auto i = self->state.entries.find({cluster, addr});
        if (i != self->state.entries.end()) {
          row.exists = true;
          row.version = i->second.version;
          row.ha_server_addr = i->second.ha_server_addr;
        }
        result.push_back(std::move(row));
      }
      return result;
    },
    [=](const broker_heartbeat_request& req) -> caf::result<caf::ok_atom> {
      if (!self->state.touch(req.cluster_name, req.broker_addr, now()))
        return make_error(errc::broker_not_found,
                          "broker " + req.broker_addr + " of cluster "
                            + req.cluster_name
                            + " is not registered; register first");
      return caf::ok_atom::value;
    },
    [=](const query_data_version_request& req) {
      query_data_version_result result;
      auto& st = self->state;
      auto i = st.entries.find({req.cluster_name, req.broker_addr});
      if (i != st.entries.end()) {
        result.version = i->second.version;
        result.changed = !(i->second.version == req.version);
        st.touch(req.cluster_name, req.broker_addr, now());
      }
      return result;
    },
    [=](const unregister_broker_request& req) {
      return self->state.stamp(req);
    },
    [=](scan_atom) { return self->state.expire(now()); },
    [=](conn_lost_atom, const caf::actor_addr& channel) {
      return self->state.lost(channel);
    },
    [=](unreport_atom) { self->state.unreport(); },
    [=](caf::delete_atom, const std::vector<unregistration>& batch) {
      return self->state.remove(batch);
    },
    [=](caf::put_atom, caf::timespan timeout) {
      self->state.default_timeout = timeout;
      return caf::ok_atom::value;
    },
    [=](dump_atom) {
      return render_dump(broker_live_table_state::name,
                         self->state.dump_fields(now()));
    },
  };
}

} // namespace rmq
