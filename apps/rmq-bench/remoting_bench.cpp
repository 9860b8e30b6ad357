// rmq-bench remoting: a broker's sends through its remoting port, written
// and read by our C++ remoting client (runtime/remoting/remoting_client),
// beside the same sends through its CAF port in the same run: 128 B with
// 1 in flight (p50/p99) and 64 in flight, batches of 64 x 128 B (320) with
// 4 in flight, and pulls of 32 with 16 in flight from a filled queue. Target: every remoting figure >= 90 % of its CAF
// counterpart (docs/benchmarks.md, "Remoting").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "apps/rmq-bench/bench_util.hpp"
#include "apps/rmq-bench/benches.hpp"
#include "apps/rmq-bench/broker_child.hpp"
#include "apps/rmq-bench/broker_requests.hpp"
#include "apps/rmq-bench/load_generator.hpp"
#include "messages/common/errors.hpp"
#include "runtime/message/byte_coding.hpp"
#include "runtime/message/message_batch.hpp"
#include "runtime/net/host_port.hpp"
#include "runtime/process/node_config.hpp"
#include "runtime/remoting/remoting_client.hpp"
#include "runtime/remoting/remoting_codes.hpp"

namespace rmq::bench {

namespace {

using namespace remoting;

constexpr size_t body_size = 128;
constexpr int batch_size = 64;
const std::string topic = "BenchRemoting";

// A SEND_MESSAGE_V2 (or a SEND_BATCH_MESSAGE of `msgs`) to queue 0, its
// header in `how`.
remoting_command remoting_send(int msgs, serialize_type how) {
  remoting_command req;
  req.serialization = how;
  req.code = msgs > 1 ? request_code::send_batch_message
                      : request_code::send_message_v2;
  req.language = "JAVA";
  req.ext_fields = {{"a", "BenchProducer"},
                    {"b", topic},
                    {"c", "TBW102"},
                    {"d", "4"},
                    {"e", "0"},
                    {"f", "0"},
                    {"g", "0"},
                    {"h", "0"}};
  if (msgs > 1) {
    std::vector<batch_entry> entries(static_cast<size_t>(msgs));
    for (auto& e : entries)
      e.body.assign(body_size, 'b');
    req.ext_fields["m"] = "true";
    req.body = *encode_batch(entries);
  } else {
    req.body.assign(body_size, 'b');
  }
  return req;
}

// Fills in the next request (a pull's offset); nothing for sends.
using next_fn = std::function<void(remoting_command&)>;

// How many messages a successful answer carries.
using count_fn = std::function<uint64_t(const remoting_command&)>;

// Keeps `in_flight` requests like `req` going on one connection for
// `seconds` (opaques tell the answers apart) and measures each.
load_result remoting_load(remoting_client& c, remoting_command req,
                          int in_flight, double seconds, next_fn next_req,
                          count_fn count) {
  load_result out;
  std::map<int32_t, clock_type::time_point> started;
  int32_t next = 1;
  auto t0 = clock_type::now();
  auto end = t0 + std::chrono::duration<double>(seconds);
  auto issue = [&] {
    if (next_req)
      next_req(req);
    req.opaque = next++;
    started[req.opaque] = clock_type::now();
    if (!c.send(req)) {
      ++out.errors;
      out.first_error = c.error();
    }
  };
  for (int i = 0; i < in_flight; ++i)
    issue();
  while (!started.empty()) {
    auto res = c.receive(std::chrono::seconds{10});
    if (!res) {
      out.errors += started.size();
      if (out.first_error.empty())
        out.first_error = "stalled: " + c.error();
      break;
    }
    auto i = started.find(res->opaque);
    if (i == started.end())
      continue;
    auto now = clock_type::now();
    ++out.requests;
    if (res->code == response_code::success) {
      out.msgs += count(*res);
      out.latencies_us.push_back(us_since(i->second, now));
    } else if (++out.errors == 1) {
      out.first_error = "code " + std::to_string(res->code) + ": "
                        + res->remark.value_or("");
    }
    started.erase(i);
    if (now < end)
      issue();
  }
  out.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  std::sort(out.latencies_us.begin(), out.latencies_us.end());
  return out;
}

// Sends count their messages.
count_fn sent(uint64_t msgs) {
  return [msgs](const remoting_command&) { return msgs; };
}

// A pull answer's records, by their total sizes (RocketMQ sends no count).
uint64_t records_in(const remoting_command& res) {
  uint64_t n = 0;
  for (size_t at = 0; at + 4 <= res.body.size(); ++n) {
    auto size = get_be32(res.body.data() + at);
    if (size == 0)
      break;
    at += size;
  }
  return n;
}

// PULL_MESSAGE of 32 from queue 0 of `pull_topic`; the offsets walk the
// queue in steps of 32 as the CAF pulls do.
remoting_command remoting_pull(const std::string& pull_topic,
                               serialize_type how) {
  remoting_command req;
  req.code = request_code::pull_message;
  req.serialization = how;
  req.ext_fields = {{"consumerGroup", "BenchGroup"},
                    {"topic", pull_topic},
                    {"queueId", "0"},
                    {"queueOffset", "0"},
                    {"maxMsgNums", "32"},
                    {"sysFlag", "0"},
                    {"commitOffset", "0"},
                    {"suspendTimeoutMillis", "0"},
                    {"subscription", "*"},
                    {"subVersion", "0"}};
  return req;
}

// Microseconds from a send to the answer of a pull held for it, per
// round: the pull (suspend flag, 20 s) goes out first, then the send of
// the message it waits for; `rounds` of them, the queue growing by one.
// The two ports' rounds alternate, so a disturbance of the machine falls
// on both alike rather than on whichever ran at the time.
using wake_round = std::function<bool(int64_t offset)>;

struct wake_times {
  std::vector<double> caf_us;
  std::vector<double> remoting_us;
};

wake_times wake_ups(int rounds, const wake_round& caf_round,
                    const wake_round& remoting_round) {
  wake_times out;
  auto timed = [](const wake_round& round, int64_t i, std::vector<double>& us) {
    auto t0 = std::chrono::steady_clock::now();
    if (!round(i))
      return false;
    us.push_back(std::chrono::duration<double, std::micro>(
                   std::chrono::steady_clock::now() - t0)
                   .count());
    return true;
  };
  for (int64_t i = 0; i < rounds; ++i)
    if (!timed(caf_round, i, out.caf_us)
        || !timed(remoting_round, i, out.remoting_us))
      break;
  std::sort(out.caf_us.begin(), out.caf_us.end());
  std::sort(out.remoting_us.begin(), out.remoting_us.end());
  return out;
}

double at(const std::vector<double>& sorted, double q) {
  if (sorted.empty())
    return 0;
  return sorted[std::min(sorted.size() - 1,
                         static_cast<size_t>(q * sorted.size()))];
}

// One figure and its same-run CAF counterpart; higher is better unless
// `lower_better` (latencies).
void report(verdicts& v, const std::string& what, double remote, double caf,
            const char* unit, bool lower_better = false) {
  double ratio
    = caf > 0 && remote > 0 ? (lower_better ? caf / remote : remote / caf) : 0;
  bool pass = ratio >= 0.9;
  (pass ? v.pass : v.miss) += 1;
  char line[256];
  std::snprintf(line, sizeof(line),
                "%-32s remoting %10.1f %s   CAF %10.1f %s   ratio %.2f "
                "(target >= 0.90)  %s",
                what.c_str(), remote, unit, caf, unit, ratio,
                pass ? "PASS" : "MISS");
  std::cout << line << std::endl;
}

} // namespace

int remoting(int argc, char** argv) {
  double seconds = 3;
  std::string header = "json";
  option_parser flags{"rmq-bench remoting"};
  flags.add("seconds", seconds, "duration of each load run");
  flags.add("header", header, "json (what Java writes by default) or binary");
  if (auto rc = flags.parse(argc, argv); rc >= 0)
    return rc;
  if (header != "json" && header != "binary") {
    std::cerr << "--header must be json or binary\n";
    return 2;
  }
  auto how = header == "json" ? serialize_type::json : serialize_type::rocketmq;
  auto child = start_broker("broker-remoting", "ASYNC_FLUSH", "/tmp", "");
  if (!child)
    return 1;
  std::string rest;
  if (!child->proc->wait_for("broker remoting on ", rest,
                             std::chrono::seconds{30})) {
    std::cerr << "the broker did not serve remoting\n";
    return 1;
  }
  auto where = parse_host_port(rest);
  if (!where) {
    std::cerr << "no remoting address in '" << rest << "'\n";
    return 1;
  }
  node_config cfg;
  if (auto err = cfg.load_network(); !err.empty()) {
    std::cerr << err << '\n';
    return 1;
  }
  caf::actor_system sys{cfg};
  auto conn = connect_broker(sys, child->address);
  if (!conn)
    return 1;
  {
    caf::scoped_actor self{sys};
    if (!create_topic(self, conn->broker, topic, 1))
      return 1;
  }
  remoting_client c;
  if (!c.connect(where->host, where->port)) {
    std::cerr << c.error() << '\n';
    return 1;
  }
  std::cout << "broker " << child->address << " (CAF), " << rest
            << " (remoting, " << header << " headers); " << seconds
            << " s a run, 128 B bodies\n";
  verdicts v;
  auto caf1 = run_load(sys, "CAF 1 in flight", 1, seconds,
                       broker_send_request(conn->broker, topic, 1, body_size));
  auto rem1 = remoting_load(c, remoting_send(1, how), 1, seconds, {}, sent(1));
  note_errors("remoting 1 in flight", rem1);
  report(v, "send, 1 in flight", rem1.rate(), caf1.rate(), "msg/s");
  report(v, "send, 1 in flight, p50", rem1.p(0.5), caf1.p(0.5), "us", true);
  report(v, "send, 1 in flight, p99", rem1.p(0.99), caf1.p(0.99), "us", true);
  auto caf64 = run_load(sys, "CAF 64 in flight", 64, seconds,
                        broker_send_request(conn->broker, topic, 1, body_size));
  auto rem64 = remoting_load(c, remoting_send(1, how), 64, seconds, {},
                             sent(1));
  note_errors("remoting 64 in flight", rem64);
  report(v, "send, 64 in flight", rem64.rate(), caf64.rate(), "msg/s");
  auto cafb
    = run_load(sys, "CAF batches", 4, seconds,
               broker_send_request(conn->broker, topic, batch_size, body_size));
  auto remb = remoting_load(c, remoting_send(batch_size, how), 4, seconds, {},
                            sent(batch_size));
  note_errors("remoting batches", remb);
  report(v, "batches of 64, 4 in flight", remb.rate(), cafb.rate(), "msg/s");
  // Held pulls woken by a send: the consumer's side of a message at
  // light load. The pull is sent first; the clock runs from the send.
  {
    const std::string wake_topic = "BenchRemotingWake";
    constexpr int rounds = 1000;
    caf::scoped_actor self{sys};
    if (!create_topic(self, conn->broker, wake_topic + "Caf", 1)
        || !create_topic(self, conn->broker, wake_topic, 1))
      return 1;
    remoting_client sender;
    if (!sender.connect(where->host, where->port)) {
      std::cerr << sender.error() << '\n';
      return 1;
    }
    auto wake_send = remoting_send(1, how);
    wake_send.ext_fields["b"] = wake_topic;
    auto caf_round = [&](int64_t offset) {
      auto pull = bench_pull(wake_topic + "Caf", "BenchWake", offset);
      pull.sys_flag = 2; // suspend
      pull.suspend_timeout_ms = 20'000;
      auto held = self->request(conn->broker, std::chrono::seconds{30}, pull);
      bool ok = true;
      self
        ->request(conn->broker, std::chrono::seconds{10},
                  bench_send(wake_topic + "Caf", 0, body_size))
        .receive([](const send_result&) {},
                 [&](const caf::error&) { ok = false; });
      held.receive(
        [&](const pull_message_result& r) { ok = ok && r.message_count > 0; },
        [&](const caf::error&) { ok = false; });
      return ok;
    };
    auto remoting_round = [&](int64_t offset) {
      auto pull = remoting_pull(wake_topic, how);
      pull.ext_fields["queueOffset"] = std::to_string(offset);
      pull.ext_fields["sysFlag"] = "2";
      pull.ext_fields["suspendTimeoutMillis"] = "20000";
      pull.opaque = static_cast<int32_t>(1'000'000 + offset);
      if (!c.send(pull) || !sender.call(wake_send, std::chrono::seconds{10}))
        return false;
      auto res = c.receive(std::chrono::seconds{30});
      return res && res->opaque == pull.opaque
             && res->code == response_code::success;
    };
    auto wakes = wake_ups(rounds, caf_round, remoting_round);
    auto& caf_wakes = wakes.caf_us;
    auto& rem_wakes = wakes.remoting_us;
    if (caf_wakes.size() < rounds || rem_wakes.size() < rounds)
      std::cerr << "wake-ups: " << caf_wakes.size() << " CAF and "
                << rem_wakes.size() << " remoting rounds of " << rounds
                << " answered\n";
    report(v, "held pull woken by a send, p50", at(rem_wakes, 0.5),
           at(caf_wakes, 0.5), "us", true);
    report(v, "held pull woken by a send, p99", at(rem_wakes, 0.99),
           at(caf_wakes, 0.99), "us", true);
  }
  // Pulls from a queue filled with batches beforehand.
  const std::string pull_topic = "BenchRemotingPull";
  constexpr int64_t filled = 200'000;
  {
    caf::scoped_actor self{sys};
    if (!create_topic(self, conn->broker, pull_topic, 1))
      return 1;
    auto fill = bench_send(pull_topic, 0, body_size);
    std::vector<batch_entry> entries(batch_size);
    for (auto& e : entries)
      e.body.assign(body_size, 'b');
    fill.batch = true;
    fill.body = *encode_batch(entries);
    for (int64_t n = 0; n < filled; n += batch_size)
      self->request(conn->broker, caf::infinite, fill)
        .receive([](const send_result&) {},
                 [](const caf::error& err) {
                   std::cerr << "fill: " << describe(err) << '\n';
                 });
    // Readable a moment after the last acknowledgement (the reput lag).
    for (int i = 0; i < 100; ++i) {
      int64_t max = 0;
      self
        ->request(conn->broker, caf::infinite,
                  get_offset_request{pull_topic, 0})
        .receive([&](const queue_offsets& x) { max = x.max_offset; },
                 [](const caf::error&) {});
      if (max >= filled)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
  }
  auto bytes = std::make_shared<uint64_t>(0);
  auto cafp = run_load(sys, "CAF pulls", 16, seconds,
                       broker_pull_request(conn->broker, pull_topic,
                                           "BenchGroup", filled, bytes));
  note_errors("CAF pulls", cafp);
  int64_t next_offset = 0;
  auto remp = remoting_load(
    c, remoting_pull(pull_topic, how), 16, seconds,
    [&](remoting_command& req) {
      if (next_offset + 32 > filled)
        next_offset = 0;
      req.ext_fields["queueOffset"] = std::to_string(next_offset);
      next_offset += 32;
    },
    records_in);
  note_errors("remoting pulls", remp);
  report(v, "pulls of 32, 16 in flight", remp.rate(), cafp.rate(), "msg/s");
  bool fast = remp.rate() >= 1'000'000;
  (fast ? v.pass : v.miss) += 1;
  std::cout << "remoting pulls " << static_cast<uint64_t>(remp.rate())
            << " msg/s (target >= 1,000,000)  " << (fast ? "PASS" : "MISS")
            << std::endl;
  std::cout << "targets: " << v.pass << " PASS, " << v.miss << " MISS\n";
  caf::anon_send_exit(conn->echo, caf::exit_reason::user_shutdown);
  return 0;
}

} // namespace rmq::bench
