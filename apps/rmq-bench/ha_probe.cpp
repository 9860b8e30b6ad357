#include "apps/rmq-bench/ha_probe.hpp"

#include "apps/rmq-bench/bench_util.hpp"

#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"

namespace rmq::bench {

namespace {

int64_t num(const nlohmann::json* part, const char* key) {
  if (part == nullptr)
    return -1;
  auto it = part->find(key);
  return it != part->end() && it->is_number_integer() ? it->get<int64_t>() : -1;
}

ha_state parse(const std::string& text) {
  ha_state st;
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded())
    return st;
  st.ok = true;
  auto writer = find_part(doc, "commit_log_writer");
  st.write_offset = num(writer, "write_offset");
  st.dispatched_offset = num(writer, "dispatched_offset");
  if (auto ha = find_part(doc, "ha_service")) {
    st.master_offset = num(ha, "master_offset");
    st.in_sync_slaves = num(ha, "in_sync_slaves");
    if (auto rows = ha->find("slaves"); rows != ha->end() && rows->is_array())
      for (auto& row : *rows)
        if (num(&row, "broker_id") == 1) {
          st.acked_offset = num(&row, "acked_offset");
          st.lag_bytes = num(&row, "lag_bytes");
        }
  }
  st.slave_offset = num(find_part(doc, "ha_client"), "slave_offset");
  return st;
}

} // namespace

ha_state read_ha_state(caf::scoped_actor& self, const broker_actor& broker,
                       std::chrono::milliseconds timeout) {
  ha_state st;
  self->request(broker, timeout, dump_atom::value)
    .receive([&](const std::string& text) { st = parse(text); },
             [&](const caf::error&) {
               // Not answered in time: `ok` stays false.
             });
  return st;
}

double wait_for_state(caf::actor_system& sys, const broker_actor& broker,
                      const std::function<bool(const ha_state&)>& done,
                      std::chrono::milliseconds interval,
                      std::chrono::seconds limit, const std::string& what) {
  caf::scoped_actor self{sys};
  auto start = std::chrono::steady_clock::now();
  ha_state last;
  while (std::chrono::steady_clock::now() - start < limit) {
    auto st = read_ha_state(self, broker);
    if (st.ok) {
      if (done(st))
        return std::chrono::duration<double>(std::chrono::steady_clock::now()
                                             - start)
          .count();
      last = st;
    }
    std::this_thread::sleep_for(interval);
  }
  std::cerr << what << ": not within " << limit.count()
            << " s (last dump: write " << last.write_offset << ", dispatched "
            << last.dispatched_offset << ", slave acked " << last.acked_offset
            << ", lag " << last.lag_bytes << " B, in sync "
            << last.in_sync_slaves << ", slave end " << last.slave_offset
            << ")\n";
  return -1;
}

} // namespace rmq::bench
