// A consume worker runs the listener on one batch and answers its status;
// a listener that throws answers the retry status and the worker lives on.
#include "actors/client/consume_worker.hpp"

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
      }});
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
}
