#include "apps/rmq-bench/load_generator.hpp"

#include <algorithm>
#include <future>
#include <iostream>
#include <memory>
#include <unordered_map>

#include "actors/common/bench_echo.hpp"
#include "apps/rmq-bench/bench_util.hpp"
#include "messages/client/client.hpp"
#include "messages/common/errors.hpp"

namespace rmq::bench {

void note_errors(const std::string& what, const load_result& r) {
  if (r.errors > 0)
    std::cout << "  " << what << ": " << r.errors
              << " errors (first: " << r.first_error << ")\n";
}

double us_since(clock_type::time_point t0, clock_type::time_point t1) {
  return std::chrono::duration<double, std::micro>(t1 - t0).count();
}

double load_result::p(double q) const {
  return percentile(latencies_us, q);
}

namespace {

// As in namesrv_bench.cpp: requests without timeouts (a CAF 0.17 request
// timeout wakes the clock thread twice per request), and a 1 s tick that
// prints the progress line and ends a run with no reply for 10 s.
constexpr auto stall_timeout = std::chrono::seconds{10};

load_result run_load(caf::actor_system& sys, const std::string& label,
                     int in_flight, double seconds, issue_fn issue,
                     caf::message_handler more) {
  auto result = std::make_shared<load_result>();
  auto start = clock_type::now();
  auto deadline = start
                  + std::chrono::duration_cast<clock_type::duration>(
                    std::chrono::duration<double>{seconds});
  auto done = std::make_shared<std::promise<void>>();
  auto fut = done->get_future();
  sys.spawn([=](caf::event_based_actor* self) -> caf::behavior {
    auto outstanding = std::make_shared<int>(0);
    auto next = std::make_shared<uint64_t>(0);
    auto last_reply = std::make_shared<clock_type::time_point>(start);
    auto finished = std::make_shared<bool>(false);
    auto finish = [=] {
      if (*finished)
        return;
      *finished = true;
      result->seconds = us_since(start, *last_reply) / 1e6;
      std::sort(result->latencies_us.begin(), result->latencies_us.end());
      std::cerr << "\r\033[K" << std::flush;
      done->set_value();
      self->quit();
    };
    auto fire = std::make_shared<std::function<void()>>();
    *fire = [=] {
      if (*finished)
        return;
      if (clock_type::now() >= deadline) {
        if (*outstanding == 0)
          finish();
        return;
      }
      ++*outstanding;
      auto t0 = clock_type::now();
      issue(self, (*next)++,
            [=](bool ok, uint64_t msgs, const std::string& why) {
              --*outstanding;
              *last_reply = clock_type::now();
              ++result->requests;
              if (ok) {
                result->msgs += msgs;
                result->latencies_us.push_back(us_since(t0, *last_reply));
              } else {
                if (result->errors++ == 0)
                  result->first_error = why;
              }
              (*fire)();
            });
    };
    for (int i = 0; i < in_flight; ++i)
      (*fire)();
    self->delayed_send(self, std::chrono::seconds{1}, caf::tick_atom::value);
    caf::message_handler tick{
      [=](caf::tick_atom) {
        if (*finished)
          return;
        auto now = clock_type::now();
        if (*outstanding > 0 && now - *last_reply > stall_timeout) {
          std::cerr << "\n"
                    << label << ": no reply for " << stall_timeout.count()
                    << " s\n";
          result->errors += static_cast<uint64_t>(*outstanding);
          if (result->first_error.empty())
            result->first_error = "stalled";
          finish();
          return;
        }
        std::cerr << "\r\033[K  " << label << ": "
                  << static_cast<uint64_t>(static_cast<double>(result->msgs)
                                           / (us_since(start, now) / 1e6))
                  << " msgs/s, " << result->errors << " errors" << std::flush;
        self->delayed_send(self, std::chrono::seconds{1},
                           caf::tick_atom::value);
      },
    };
    return more ? caf::behavior{tick.or_else(more)} : caf::behavior{tick};
  });
  fut.wait();
  return *result;
}

} // namespace

load_result run_load(caf::actor_system& sys, const std::string& label,
                     int in_flight, double seconds, issue_fn issue) {
  return run_load(sys, label, in_flight, seconds, std::move(issue), {});
}

load_result run_tagged_load(caf::actor_system& sys, const std::string& label,
                            int in_flight, double seconds, tagged_fn send) {
  // Only the generator's own thread touches it.
  auto waiting = std::make_shared<std::unordered_map<uint64_t, done_fn>>();
  auto issue = [=](caf::event_based_actor* self, uint64_t seq, done_fn done) {
    waiting->emplace(seq, std::move(done));
    send(self, seq);
  };
  auto end = [waiting](uint64_t tag, bool ok, const std::string& why) {
    auto i = waiting->find(tag);
    if (i == waiting->end())
      return;
    auto done = std::move(i->second);
    waiting->erase(i);
    done(ok, ok ? 1 : 0, why);
  };
  caf::message_handler answers{
    [=](async_atom, uint64_t tag, const client_send_result&) {
      end(tag, true, {});
    },
    [=](async_atom, uint64_t tag, const caf::error& err) {
      end(tag, false, describe(err));
    },
  };
  return run_load(sys, label, in_flight, seconds, std::move(issue),
                  std::move(answers));
}

issue_fn echo_request(const caf::actor& echo, std::string payload,
                      uint64_t msgs_per_request, uint64_t reply_bytes) {
  auto shared = std::make_shared<const std::string>(std::move(payload));
  return [=](caf::event_based_actor* self, uint64_t, done_fn done) {
    auto on_error = [done](const caf::error& err) {
      done(false, 0, describe(err));
    };
    if (reply_bytes == 0)
      self->request(echo, caf::infinite, bench_echo_atom::value, *shared)
        .then([=](uint64_t) { done(true, msgs_per_request, {}); }, on_error);
    else
      self
        ->request(echo, caf::infinite, bench_echo_atom::value, *shared,
                  reply_bytes)
        .then([=](const std::string&) { done(true, msgs_per_request, {}); },
              on_error);
  };
}

} // namespace rmq::bench
