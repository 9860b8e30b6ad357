// `rmq-bench store-writer`: the writer process of the SIGKILL crash test.
// Opens (and so recovers) a store, runs the real detached store actors, and
// appends batches to topic "crash" queue 0 forever, printing one line per
// acknowledged message once its batch is acknowledged:
//   READY <next queue offset>
//   ACK <queue offset> <phys offset> <seq>
// Bodies are "seq=<seq>;" plus filler, seq == queue offset, so a checker can
// verify every acknowledged message after any kill.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "caf/actor_system.hpp"
#include "caf/scoped_actor.hpp"

#include "actors/broker/store/store_actors.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/process/node_config.hpp"
#include "runtime/storage/message_store.hpp"

namespace rmq::bench {

int store_writer(int argc, char** argv) {
  std::string dir;
  std::string flush = "sync";
  int segment_kib = 1024;
  int max_batch = 8;
  int count = 0; // 0: forever
  option_parser flags{"rmq-bench store-writer --dir=D [flags]"};
  flags.add("dir", dir, "store folder");
  flags.add("flush", flush, "sync or async");
  flags.add("segment-kib", segment_kib, "commit-log segment size in KiB");
  flags.add("max-batch", max_batch, "largest batch (random 1..n)");
  flags.add("count", count, "stop after this many acks (0: never)");
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  if (dir.empty()) {
    std::cerr << "store-writer: --dir is required\n";
    return 2;
  }
  storage::store_config cfg;
  cfg.dir = dir;
  cfg.segment_size = static_cast<size_t>(segment_kib) * 1024;
  cfg.max_message_size = 64 * 1024;
  cfg.flush = flush == "async" ? storage::flush_mode::async
                               : storage::flush_mode::sync;
  auto opened = storage::message_store::open(cfg, system_clock_ms());
  if (!opened) {
    std::cerr << "store-writer: " << describe(opened.error()) << '\n';
    return 1;
  }
  auto store = *opened;
  node_config sys_cfg;
  caf::actor_system sys{sys_cfg};
  auto actors = spawn_store_actors(sys, store, true);
  auto seq = store->offsets("crash", 0).max_offset;
  std::printf("READY %lld\n", static_cast<long long>(seq));
  std::fflush(stdout);
  std::mt19937 rng{std::random_device{}()};
  caf::scoped_actor self{sys};
  int acked = 0;
  int rc = 0;
  while (count == 0 || acked < count) {
    auto n = std::uniform_int_distribution<int>{1, max_batch}(rng);
    std::vector<store_message> batch;
    for (int i = 0; i < n; ++i) {
      store_message msg;
      msg.topic = "crash";
      msg.body = "seq=" + std::to_string(seq + i) + ";";
      msg.body.append(std::uniform_int_distribution<size_t>{0, 2000}(rng),
                      static_cast<char>('a' + (seq + i) % 26));
      batch.push_back(std::move(msg));
    }
    bool ok = true;
    self
      ->request(actors.commit_log, caf::infinite, caf::put_atom::value,
                std::move(batch))
      .receive(
        [&](std::vector<put_result>& res) {
          std::string out;
          for (auto& r : res) {
            if (r.error || r.queue_offset != seq) {
              std::cerr << "store-writer: unexpected result "
                        << describe(r.error) << " at " << r.queue_offset
                        << '\n';
              ok = false;
              break;
            }
            out += "ACK " + std::to_string(r.queue_offset) + ' '
                   + std::to_string(r.phys_offset) + ' ' + std::to_string(seq)
                   + '\n';
            ++seq;
            ++acked;
          }
          std::fwrite(out.data(), 1, out.size(), stdout);
          std::fflush(stdout);
        },
        [&](caf::error& err) {
          std::cerr << "store-writer: " << describe(err) << '\n';
          ok = false;
        });
    if (!ok) {
      rc = 1;
      break;
    }
  }
  self->send_exit(actors.commit_log, caf::exit_reason::user_shutdown);
  return rc;
}

} // namespace rmq::bench
