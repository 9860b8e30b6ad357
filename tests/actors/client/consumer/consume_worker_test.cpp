// A consume worker runs the listener on one batch and answers its status;
// a listener that throws answers the retry status and the worker lives on.
#include "actors/client/consumer/consume_worker.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/support/deterministic_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::deterministic_fixture {};

std::vector<received_message> batch(const std::string& body) {
  received_message m;
  m.body = body;
  return {m};
}

} // namespace

TEST_SUITE("client.consume_worker") {
  TEST_CASE_FIXTURE(fixture, "a throwing listener is a retry and the "
                             "worker goes on") {
    int calls = 0;
    auto w = spawn(
      consume_worker,
      batch_listener{[&](const std::vector<received_message>& b) -> uint8_t {
        ++calls;
        if (b[0].body == "boom")
          throw std::runtime_error("boom");
        if (b[0].body == "int")
          throw 42;
        return 0;
      }},
      size_t{1});
    auto r = ask<consume_result>(w, consume_atom::value, batch("fine"));
    CHECK_EQ(r.status, 0);
    CHECK(r.error.empty());
    // A consumed batch stays with the worker; a retried one comes back.
    CHECK(r.batch.empty());
    r = ask<consume_result>(w, consume_atom::value, batch("boom"));
    CHECK_EQ(r.status, static_cast<uint8_t>(consume_status::reconsume_later));
    CHECK_EQ(r.error, "boom");
    REQUIRE_EQ(r.batch.size(), 1u);
    CHECK_EQ(r.batch[0].body, "boom");
    r = ask<consume_result>(w, consume_atom::value, batch("int"));
    CHECK_EQ(r.status, 1);
    CHECK_EQ(r.error, "unknown exception");
    r = ask<consume_result>(w, consume_atom::value, batch("fine"));
    CHECK_EQ(r.status, 0);
    CHECK_EQ(calls, 4);
    auto d = nlohmann::json::parse(ask<std::string>(w, dump_atom::value));
    CHECK_EQ(d["actor"], "consume_worker");
    CHECK_EQ(d["batches"], 4);
    CHECK_EQ(d["thrown"], 2);
    CHECK_EQ(d["retries"], 2);
    CHECK_EQ(d["last_error"], "unknown exception");
  }

  TEST_CASE_FIXTURE(fixture, "a job of several slices calls the listener "
                             "per slice and hands back the retried ones") {
    std::vector<std::vector<std::string>> seen;
    auto w = spawn(
      consume_worker,
      batch_listener{[&](const std::vector<received_message>& b) -> uint8_t {
        seen.emplace_back();
        bool retry = false;
        for (auto& m : b) {
          seen.back().push_back(m.body);
          retry = retry || m.body == "r";
        }
        if (seen.size() == 3)
          throw std::runtime_error("third");
        return retry ? 1 : 0;
      }},
      size_t{2});
    std::vector<received_message> job;
    for (auto body : {"a", "r", "b", "c", "d", "e", "f"}) {
      job.emplace_back();
      job.back().body = body;
      job.back().queue_offset = static_cast<int64_t>(job.size());
    }
    auto r = ask<consume_result>(w, consume_atom::value, job);
    // Slices of two, in order; the last one shorter.
    REQUIRE_EQ(seen.size(), 4u);
    CHECK_EQ(seen[0], std::vector<std::string>{"a", "r"});
    CHECK_EQ(seen[1], std::vector<std::string>{"b", "c"});
    CHECK_EQ(seen[2], std::vector<std::string>{"d", "e"});
    CHECK_EQ(seen[3], std::vector<std::string>{"f"});
    CHECK_EQ(r.status, 1);
    CHECK_EQ(r.calls, 4);
    CHECK_EQ(r.retried_calls, 2);
    CHECK_EQ(r.error, "third");
    // Back: the slice that asked a retry and the one that threw.
    std::vector<int64_t> back;
    for (auto& m : r.batch)
      back.push_back(m.queue_offset);
    CHECK_EQ(back, std::vector<int64_t>{1, 2, 5, 6});
    auto d = nlohmann::json::parse(ask<std::string>(w, dump_atom::value));
    CHECK_EQ(d["slice"], 2);
    CHECK_EQ(d["batches"], 4);
    CHECK_EQ(d["messages"], 7);
    CHECK_EQ(d["retries"], 2);
  }
}
