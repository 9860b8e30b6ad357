// The file writer of a table on the deterministic coordinator: it writes
// what it is asked, answers the failure of a write, and quits after its
// owner only once the writes the owner sent before going down are done.
#include "actors/common/json_file_writer.hpp"

#include <chrono>
#include <filesystem>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/event_based_actor.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::deterministic_fixture {
  test::temp_dir dir{"rmq-writer"};
  std::string path = dir.path() + "/config/table.json";
  caf::actor owner = spawn([] { return caf::behavior{[](int) {}}; });
  json_file_writer_actor writer = spawn(json_file_writer, path, owner);

  nlohmann::json file() {
    auto doc = json_file::load(path);
    REQUIRE(doc);
    return *doc;
  }

  caf::error put(std::string text) {
    caf::error result;
    request(writer, caf::put_atom::value, std::move(text))
      .receive([] {}, [&](const caf::error& err) { result = err; });
    return result;
  }
};

} // namespace

TEST_SUITE("broker.json_file_writer") {
  TEST_CASE_FIXTURE(fixture, "writes each document it is asked, the last "
                             "one stays") {
    CHECK_FALSE(put(R"({"a":1})"));
    CHECK_EQ(file()["a"], 1);
    CHECK_FALSE(put(R"({"a":2})"));
    CHECK_EQ(file()["a"], 2);
    CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
    auto d = nlohmann::json::parse(ask<std::string>(writer, dump_atom::value));
    CHECK_EQ(d["actor"], "json_file_writer");
    CHECK_EQ(d["writes"], 2);
    CHECK_EQ(d["last_bytes"], 7);
  }

  TEST_CASE_FIXTURE(fixture, "a failed write is answered with its error") {
    std::filesystem::create_directories(path + ".tmp");
    CHECK(put(R"({"a":1})") == errc::io_error);
    CHECK_FALSE(std::filesystem::exists(path));
    auto d = nlohmann::json::parse(ask<std::string>(writer, dump_atom::value));
    CHECK_EQ(d["failures"], 1);
    CHECK_NE(d["last_error"], "");
  }

  TEST_CASE_FIXTURE(fixture, "the owner's last write lands before the "
                             "writer quits") {
    self->monitor(writer);
    caf::anon_send(writer, caf::put_atom::value, std::string{R"({"last":1})"});
    caf::anon_send_exit(owner, caf::exit_reason::user_shutdown);
    sched.run();
    CHECK_EQ(file()["last"], 1);
    bool down = false;
    self->receive(
      [&](const caf::down_msg& msg) { down = msg.source == writer.address(); },
      caf::after(std::chrono::seconds{0}) >> [] {});
    CHECK(down);
  }
}
