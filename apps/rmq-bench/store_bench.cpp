// `rmq-bench store`: message store append throughput through the real
// (detached) store actors, 128 B and 1 KB bodies, async and sync flush,
// single and batched appends; recovery time of a 1 GiB log; and the raw disk
// figures of the same folder (buffered sequential write, fdatasync per 4 KiB
// write) next to them. Every figure is the median of --runs runs.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "caf/actor_system.hpp"
#include "caf/scoped_actor.hpp"

#include "actors/broker/store/store_actors.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/process/node_config.hpp"
#include "runtime/storage/message_store.hpp"

namespace fs = std::filesystem;
using clk = std::chrono::steady_clock;

namespace rmq::bench {

namespace {

double seconds_since(clk::time_point t0) {
  return std::chrono::duration<double>(clk::now() - t0).count();
}

// Buffered sequential write of `mib` MiB in 1 MiB writes: MB/s.
double raw_buffered_write(const std::string& dir, int mib) {
  auto path = dir + "/raw-seq";
  auto fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char> buf(1 << 20, 'x');
  auto t0 = clk::now();
  for (int i = 0; i < mib; ++i)
    if (::write(fd, buf.data(), buf.size()) < 0)
      break;
  auto s = seconds_since(t0);
  ::close(fd);
  ::unlink(path.c_str());
  return mib * 1.048576 / s;
}

// 4 KiB write + fdatasync, repeated for `secs`: syncs per second.
double raw_fdatasync(const std::string& dir, double secs) {
  auto path = dir + "/raw-sync";
  auto fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char> buf(4096, 'y');
  int n = 0;
  auto t0 = clk::now();
  while (seconds_since(t0) < secs) {
    if (::write(fd, buf.data(), buf.size()) < 0 || fdatasync(fd) != 0)
      break;
    ++n;
  }
  auto s = seconds_since(t0);
  ::close(fd);
  ::unlink(path.c_str());
  return n / s;
}

struct figures {
  double msgs_per_s = 0;
  double mb_per_s = 0;
  int64_t errors = 0;
};

store_message bench_message(size_t body) {
  store_message msg;
  msg.topic = "BenchTopic";
  msg.body.assign(body, 'b');
  append_property(msg.properties, property_tags, "TagA");
  return msg;
}

// Keeps `in_flight` batches of `batch` messages going for `secs`.
figures run_actors(const std::string& dir, storage::flush_mode mode,
                   size_t body, int batch, int in_flight, double secs) {
  fs::remove_all(dir);
  storage::store_config cfg;
  cfg.dir = dir;
  cfg.flush = mode;
  auto store = storage::message_store::open(cfg, system_clock_ms());
  if (!store) {
    std::cerr << describe(store.error()) << '\n';
    return {};
  }
  figures result;
  int64_t done = 0;
  {
    node_config sys_cfg;
    caf::actor_system sys{sys_cfg};
    auto actors = spawn_store_actors(sys, *store, true);
    caf::scoped_actor self{sys};
    std::vector<store_message> proto(static_cast<size_t>(batch),
                                     bench_message(body));
    int outstanding = 0;
    auto t0 = clk::now();
    for (;;) {
      bool more = seconds_since(t0) < secs;
      while (more && outstanding < in_flight) {
        self->send(actors.commit_log, caf::put_atom::value, proto);
        ++outstanding;
      }
      if (outstanding == 0)
        break;
      self->receive(
        [&](std::vector<put_result>& res) {
          --outstanding;
          for (auto& r : res)
            r.error ? ++result.errors : ++done;
        },
        [&](caf::error&) {
          --outstanding;
          result.errors += batch;
        });
    }
    auto s = seconds_since(t0);
    result.msgs_per_s = done / s;
    result.mb_per_s = result.msgs_per_s * body / 1e6;
    self->send_exit(actors.commit_log, caf::exit_reason::user_shutdown);
  }
  store->reset();
  fs::remove_all(dir);
  return result;
}

struct recovery_figures {
  double write_s = 0;
  double crash_recovery_s = 0;
  double clean_recovery_s = 0;
};

// Writes `gib` GiB of 1 KB messages directly, crashes (no checkpoint, no
// queues), recovers; then closes cleanly and reopens.
recovery_figures run_recovery(const std::string& dir, double gib) {
  fs::remove_all(dir);
  storage::store_config cfg;
  cfg.dir = dir;
  recovery_figures result;
  auto msg = bench_message(1024);
  auto n = static_cast<int64_t>(gib * (1 << 30)
                                / static_cast<double>(record_size(msg)))
           - 1;
  {
    auto st = *storage::message_store::open(cfg, system_clock_ms());
    auto t0 = clk::now();
    std::vector<store_message> batch(64, msg);
    for (int64_t i = 0; i < n; i += 64)
      st->put(batch, system_clock_ms(), 0);
    st->flush(st->write_offset());
    result.write_s = seconds_since(t0);
  } // crash: abort marker stays, nothing dispatched
  fs::remove(dir + "/checkpoint");
  fs::remove_all(dir + "/consumequeue");
  auto t0 = clk::now();
  auto st = *storage::message_store::open(cfg, system_clock_ms());
  result.crash_recovery_s = seconds_since(t0);
  st->close();
  st.reset();
  t0 = clk::now();
  st = *storage::message_store::open(cfg, system_clock_ms());
  result.clean_recovery_s = seconds_since(t0);
  st->close();
  st.reset();
  fs::remove_all(dir);
  return result;
}

} // namespace

int store(int argc, char** argv) {
  std::string dir = "/tmp/rmq-store-bench";
  int runs = 3;
  int seconds = 2;
  int recovery_mib = 1024;
  option_parser flags{"rmq-bench store"};
  flags.add("dir", dir, "folder for the store and the raw disk tests");
  flags.add("runs", runs, "runs per figure (the median is printed)");
  flags.add("seconds", seconds, "duration of one append run");
  flags.add("recovery-mib", recovery_mib, "log size for the recovery test");
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  log::set_level(log::level::warn);
  fs::create_directories(dir);
  auto med = [&](auto f) {
    std::vector<double> xs;
    for (int i = 0; i < runs; ++i)
      xs.push_back(f());
    return median(xs);
  };
  std::printf("# rmq-bench store: dir %s, median of %d runs\n", dir.c_str(),
              runs);
  auto raw_mb = med([&] { return raw_buffered_write(dir, 512); });
  auto raw_sync = med([&] { return raw_fdatasync(dir, 2.0); });
  std::printf("raw buffered sequential write (1 MiB writes): %.0f MB/s\n",
              raw_mb);
  std::printf("raw fdatasync after each 4 KiB write: %.0f syncs/s\n", raw_sync);
  std::printf("%-6s %-5s %-7s %9s %13s %9s %8s %s\n", "flush", "body", "batch",
              "in-flight", "msgs/s", "MB/s", "errors", "ratio");
  for (auto mode : {storage::flush_mode::async, storage::flush_mode::sync})
    for (size_t body : {size_t{128}, size_t{1024}})
      for (int batch : {1, 64}) {
        int in_flight = batch == 1 ? 256 : 8;
        figures f;
        std::vector<double> msgs, mbs;
        for (int i = 0; i < runs; ++i) {
          auto x = run_actors(dir + "/store", mode, body, batch, in_flight,
                              seconds);
          msgs.push_back(x.msgs_per_s);
          mbs.push_back(x.mb_per_s);
          f.errors += x.errors;
        }
        f.msgs_per_s = median(msgs);
        f.mb_per_s = median(mbs);
        bool sync = mode == storage::flush_mode::sync;
        // Async: share of the raw page-cache bandwidth (payload bytes).
        // Sync: messages per raw fdatasync (the group-commit factor).
        char ratio[64];
        if (sync)
          std::snprintf(ratio, sizeof(ratio), "%.1f msgs per raw sync",
                        f.msgs_per_s / raw_sync);
        else
          std::snprintf(ratio, sizeof(ratio), "%.1f%% of raw MB/s",
                        100.0 * f.mb_per_s / raw_mb);
        std::printf("%-6s %-5zu %-7d %9d %13.0f %9.1f %8lld %s\n",
                    sync ? "sync" : "async", body, batch, in_flight,
                    f.msgs_per_s, f.mb_per_s, static_cast<long long>(f.errors),
                    ratio);
        std::fflush(stdout);
      }
  auto gib = recovery_mib / 1024.0;
  std::vector<double> w, c, k;
  for (int i = 0; i < runs; ++i) {
    auto r = run_recovery(dir + "/recovery", gib);
    w.push_back(r.write_s);
    c.push_back(r.crash_recovery_s);
    k.push_back(r.clean_recovery_s);
  }
  std::printf("recovery of a %d MiB log (1 KB messages): write %.2f s "
              "(direct, batches of 64), crash recovery without checkpoint "
              "or queues %.2f s (%.0f MB/s), clean restart %.2f s\n",
              recovery_mib, median(w), median(c),
              recovery_mib * 1.048576 / median(c), median(k));
  fs::remove_all(dir);
  return 0;
}

} // namespace rmq::bench
