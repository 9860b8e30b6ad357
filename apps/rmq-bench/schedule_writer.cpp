// `rmq-bench schedule-writer`: the process of the schedule service's
// SIGKILL test. Opens (and so recovers) a store with sync flush, no dedup
// and one delay level of 0 s, runs the real detached store actors and
// schedule service, and stores delayed messages for topic "sched-real"
// queue 0 (bodies "seq=<n>", UNIQ_KEY "SCHED-<n>") until the schedule queue
// holds --count of them, while the service delivers them. Prints
//   READY <scheduled so far>
// at start and, once everything scheduled is delivered,
//   DONE <delivered by this process> <found already delivered>
// and exits 0. The checker kills it at random moments and finally counts
// every seq in the real queue: each exactly once.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/actor_system.hpp"
#include "caf/scoped_actor.hpp"

#include "actors/broker/delayed/schedule_service.hpp"
#include "actors/broker/store/store_actors.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/process/node_config.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq::bench {

int schedule_writer(int argc, char** argv) {
  std::string dir;
  int count = 0;
  int max_batch = 8;
  option_parser flags{"rmq-bench schedule-writer --dir=D [flags]"};
  flags.add("dir", dir, "store folder");
  flags.add("count", count, "messages to schedule in all (0: no more)");
  flags.add("max-batch", max_batch, "largest batch (random 1..n)");
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  if (dir.empty()) {
    std::cerr << "schedule-writer: --dir is required\n";
    return 2;
  }
  storage::store_config cfg;
  cfg.dir = dir;
  cfg.segment_size = 256 * 1024;
  cfg.max_message_size = 64 * 1024;
  cfg.flush = storage::flush_mode::sync;
  cfg.dedup_window = std::chrono::milliseconds{0};
  cfg.message_delay_level = "0s";
  // A crash test on a shared disk: neither refuse writes nor delete
  // segments (which would drop scheduled messages) because others filled it.
  cfg.disk_full_ratio = 1.0;
  cfg.disk_clean_ratio = 1.0;
  auto opened = storage::message_store::open(cfg, system_clock_ms());
  if (!opened) {
    std::cerr << "schedule-writer: " << describe(opened.error()) << '\n';
    return 1;
  }
  auto store = *opened;
  node_config sys_cfg;
  caf::actor_system sys{sys_cfg};
  auto actors = spawn_store_actors(sys, store, true);
  schedule_service_options sopts;
  sopts.offsets_path = delay_offsets_json_path(dir);
  sopts.message_delay_level = cfg.message_delay_level;
  sopts.arrival_check_delay = std::chrono::milliseconds{5};
  auto service = sys.spawn<caf::detached>(
    schedule_service, sopts, actors.queue_service, actors.commit_log);
  caf::anon_send(actors.queue_service, caf::subscribe_atom::value,
                 caf::actor_cast<arrival_listener_actor>(service));
  auto seq = store->offsets(schedule_topic, 0).max_offset;
  std::printf("READY %lld\n", static_cast<long long>(seq));
  std::fflush(stdout);
  std::mt19937 rng{std::random_device{}()};
  caf::scoped_actor self{sys};
  int rc = 0;
  while (seq < count && rc == 0) {
    auto n = std::min<int64_t>(
      std::uniform_int_distribution<int>{1, max_batch}(rng), count - seq);
    std::vector<store_message> batch;
    for (int64_t i = 0; i < n; ++i) {
      store_message msg;
      msg.topic = "sched-real";
      msg.body = "seq=" + std::to_string(seq + i);
      append_property(msg.properties, property_uniq_key,
                      "SCHED-" + std::to_string(seq + i));
      append_property(msg.properties, property_delay, "1");
      if (auto level = to_schedule(msg, 1); !level || *level != 1) {
        std::cerr << "schedule-writer: not scheduled\n";
        return 1;
      }
      batch.push_back(std::move(msg));
    }
    self
      ->request(actors.commit_log, caf::infinite, caf::put_atom::value,
                std::move(batch))
      .receive(
        [&](std::vector<put_result>& res) {
          for (auto& r : res) {
            if (r.error || r.queue_offset != seq) {
              std::cerr << "schedule-writer: unexpected result "
                        << describe(r.error) << " at " << r.queue_offset
                        << '\n';
              rc = 1;
              return;
            }
            ++seq;
          }
        },
        [&](caf::error& err) {
          std::cerr << "schedule-writer: " << describe(err) << '\n';
          rc = 1;
        });
  }
  // Wait until the service has delivered everything scheduled.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
  while (rc == 0) {
    nlohmann::json dump;
    self->request(service, std::chrono::seconds{5}, dump_atom::value)
      .receive([&](std::string& text) { dump = nlohmann::json::parse(text); },
               [&](caf::error& err) {
                 std::cerr << "schedule-writer: " << describe(err) << '\n';
                 rc = 1;
               });
    if (rc != 0)
      break;
    auto& lv = dump["levels"][0];
    if (lv["offset"].get<int64_t>() >= seq) {
      std::printf("DONE %lld %lld\n",
                  static_cast<long long>(lv["delivered"].get<int64_t>()),
                  static_cast<long long>(lv["verified"].get<int64_t>()));
      std::fflush(stdout);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      std::cerr << "schedule-writer: not delivered in time: " << dump << '\n';
      rc = 1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  self->send_exit(service, caf::exit_reason::user_shutdown);
  self->send_exit(actors.commit_log, caf::exit_reason::user_shutdown);
  return rc;
}

} // namespace rmq::bench
