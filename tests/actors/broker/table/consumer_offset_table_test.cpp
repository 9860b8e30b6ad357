// The consumer offset table on the deterministic coordinator with the real
// queue service (temp dir): query and update, RocketMQ's QUERY_NOT_FOUND rule,
// listing, persistence across a restart, on exit and on the 5 s timer of
// the virtual clock (through its file writer), a failed write; and the
// queue service's arrival notes to its listeners.
#include "actors/broker/table/consumer_offset_table.hpp"

#include <chrono>
#include <filesystem>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/event_based_actor.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/support/deterministic_fixture.hpp"

#include "actors/broker/store/store_actors.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

struct fixture : test::deterministic_fixture {
  test::temp_dir dir;
  test::temp_dir config_dir{"rmq-offsets"};
  std::shared_ptr<storage::message_store> store;
  store_actors actors;
  std::string path = config_dir.path() + "/config/consumerOffset.json";
  consumer_offset_table_actor table;

  fixture() {
    store = test::open_store(test::small_config(dir.path()));
    actors = spawn_store_actors(sys, store, false, 0s);
    track(actors.commit_log);
    track(actors.flusher);
    track(actors.queue_service);
    sched.run();
  }

  ~fixture() {
    stop_table();
    caf::anon_send_exit(actors.commit_log, caf::exit_reason::user_shutdown);
    sched.run();
  }

  void start_table(caf::timespan interval = 5s) {
    consumer_offset_config cfg;
    cfg.path = path;
    cfg.flush_interval = interval;
    table = spawn(consumer_offset_table, cfg, actors.queue_service);
  }

  void stop_table() {
    if (table) {
      caf::anon_send_exit(table, caf::exit_reason::user_shutdown);
      sched.run();
      table = nullptr;
    }
  }

  void put(int n, int32_t queue = 0) {
    std::vector<store_message> msgs;
    for (int i = 0; i < n; ++i)
      msgs.push_back(test::make_message("T", queue, "m" + std::to_string(i)));
    ask<std::vector<put_result>>(actors.commit_log, caf::put_atom::value, msgs);
  }

  void update(std::string group, std::string topic, int32_t queue,
              int64_t offset) {
    caf::anon_send(table, update_offset_request{group, topic, queue, offset});
    sched.run();
  }

  int64_t query(std::string group, std::string topic, int32_t queue) {
    return ask<int64_t>(table, query_offset_request{group, topic, queue});
  }

  caf::error query_error(query_offset_request req) {
    return ask_error<int64_t>(table, req);
  }

  nlohmann::json file() {
    auto doc = json_file::load(path);
    REQUIRE(doc);
    return *doc;
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(table, dump_atom::value));
  }
};

} // namespace

TEST_SUITE("broker.consumer_offset_table") {
  TEST_CASE_FIXTURE(fixture, "updates are answered by queries and listed") {
    start_table();
    update("G", "T", 0, 7);
    update("G", "T", 2, 9);
    update("G", "T", 0, 8);
    update("G", "U", 1, 3);
    update("H", "T", 0, 1);
    CHECK_EQ(query("G", "T", 0), 8);
    CHECK_EQ(query("G", "T", 2), 9);
    CHECK_EQ(query("H", "T", 0), 1);
    auto listed = ask<std::vector<consumer_offsets>>(
      table, list_offsets_request{"G", "T"});
    REQUIRE_EQ(listed.size(), 1u);
    CHECK_EQ(listed[0].offsets, (std::map<int32_t, int64_t>{{0, 8}, {2, 9}}));
    listed = ask<std::vector<consumer_offsets>>(table,
                                                list_offsets_request{"G", ""});
    REQUIRE_EQ(listed.size(), 2u);
    CHECK_EQ(listed[0].topic, "T");
    CHECK_EQ(listed[1].topic, "U");
    CHECK_EQ(listed[1].offsets, (std::map<int32_t, int64_t>{{1, 3}}));
    auto d = dump();
    CHECK_EQ(d["actor"], "consumer_offset_table");
    CHECK_EQ(d["entries"], 3);
    CHECK_EQ(d["updates"], 5);
  }

  TEST_CASE_FIXTURE(fixture, "a deleted topic's offsets go for every group") {
    start_table();
    update("G", "T", 0, 7);
    update("H", "T", 1, 2);
    update("G", "TT", 0, 5);
    CHECK_EQ(ask<int64_t>(table, caf::delete_atom::value, std::string{"T"}), 2);
    CHECK(
      ask<std::vector<consumer_offsets>>(table, list_offsets_request{"H", ""})
        .empty());
    auto left = ask<std::vector<consumer_offsets>>(
      table, list_offsets_request{"G", ""});
    REQUIRE_EQ(left.size(), 1u);
    CHECK_EQ(left[0].topic, "TT");
    CHECK_EQ(ask<int64_t>(table, caf::delete_atom::value, std::string{"T"}), 0);
  }

  TEST_CASE_FIXTURE(fixture, "an unknown offset follows RocketMQ's "
                             "QUERY_NOT_FOUND rule") {
    start_table();
    // An empty queue: nothing to start from.
    CHECK(query_error({"G", "T", 0}) == errc::query_not_found);
    // A queue that still holds message 0: a new group starts there.
    put(3);
    CHECK_EQ(query("G", "T", 0), 0);
    // Unless the client asks not to be set to zero.
    CHECK(query_error({"G", "T", 0, false}) == errc::query_not_found);
    CHECK(query_error({"G", "T", 1}) == errc::query_not_found);
  }

  TEST_CASE_FIXTURE(fixture, "offsets survive a restart") {
    start_table();
    update("G", "T", 0, 7);
    update("G", "T", 3, 11);
    CHECK_EQ(ask<int64_t>(table, flush_atom::value), 1);
    auto doc = file();
    CHECK_EQ(doc["offsetTable"]["T@G"]["0"], 7);
    CHECK_EQ(doc["offsetTable"]["T@G"]["3"], 11);
    CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
    // A change after the last flush is persisted when the actor exits.
    update("G", "T", 0, 8);
    stop_table();
    start_table();
    CHECK_EQ(query("G", "T", 0), 8);
    CHECK_EQ(query("G", "T", 3), 11);
  }

  TEST_CASE_FIXTURE(fixture, "the table is persisted every 5 s") {
    start_table();
    update("G", "T", 0, 4);
    advance_time(4s, 500ms);
    CHECK_FALSE(std::filesystem::exists(path));
    advance_time(1s, 500ms);
    REQUIRE(std::filesystem::exists(path));
    CHECK_EQ(file()["offsetTable"]["T@G"]["0"], 4);
    CHECK_EQ(dump()["persists"], 1);
    // Nothing changed: no rewrite.
    advance_time(10s, 1s);
    CHECK_EQ(dump()["persists"], 1);
    update("G", "T", 0, 5);
    advance_time(5s, 1s);
    CHECK_EQ(file()["offsetTable"]["T@G"]["0"], 5);
    CHECK_EQ(dump()["persists"], 2);
  }

  TEST_CASE_FIXTURE(fixture, "a failed write is reported and made again "
                             "at the next tick") {
    start_table();
    update("G", "T", 0, 4);
    // A directory where the writer's temporary file goes: open fails.
    std::filesystem::create_directories(path + ".tmp");
    CHECK(ask_error<int64_t>(table, flush_atom::value) == errc::io_error);
    auto d = dump();
    CHECK_NE(d["last_error"], "");
    CHECK_EQ(d["dirty"], true);
    CHECK_EQ(d["persists"], 0);
    CHECK_FALSE(std::filesystem::exists(path));
    std::filesystem::remove(path + ".tmp");
    advance_time(5s, 1s);
    REQUIRE(std::filesystem::exists(path));
    CHECK_EQ(file()["offsetTable"]["T@G"]["0"], 4);
    d = dump();
    CHECK_EQ(d["dirty"], false);
    CHECK_EQ(d["writing"], false);
    CHECK_EQ(d["persists"], 1);
  }

  TEST_CASE_FIXTURE(fixture, "a corrupt file is moved aside") {
    std::filesystem::create_directories(
      std::filesystem::path{path}.parent_path());
    test::write_file(path, "{\"offsetTable\": [");
    start_table();
    CHECK(std::filesystem::exists(path + ".corrupt.1"));
    CHECK_EQ(dump()["corrupt_copy"], path + ".corrupt.1");
    CHECK(query_error({"G", "T", 0}) == errc::query_not_found);
    // A second corrupt file does not replace the first one.
    stop_table();
    test::write_file(path, "nope");
    start_table();
    CHECK(std::filesystem::exists(path + ".corrupt.2"));
  }

  TEST_CASE("the file format is RocketMQ's and parses back") {
    consumer_offset_map table{{"T@G", {{0, 5}, {12, 7}}}};
    auto text = consumer_offsets_to_text(table);
    CHECK_EQ(nlohmann::json::parse(text)["offsetTable"]["T@G"]["12"], 7);
    auto back = consumer_offsets_from_text(text);
    REQUIRE(back);
    CHECK_EQ(*back, table);
    CHECK_FALSE(consumer_offsets_from_text("[]"));
    CHECK_FALSE(consumer_offsets_from_text("{\"offsetTable\":{\"x\":{}}}"));
    CHECK_FALSE(
      consumer_offsets_from_text("{\"offsetTable\":{\"T@G\":{\"a\":1}}}"));
    CHECK(consumer_offsets_from_text("{}"));
  }

  TEST_CASE_FIXTURE(fixture, "the queue_service notes arrivals to its "
                             "listeners") {
    auto count = std::make_shared<int>(0);
    auto last = std::make_shared<int64_t>(0);
    auto listener = sys.spawn([count, last](caf::event_based_actor*) {
      return caf::behavior{[count, last](arrival_atom, int64_t offset) {
        ++*count;
        *last = offset;
      }};
    });
    track(listener);
    sched.run();
    caf::anon_send(actors.queue_service, caf::subscribe_atom::value,
                   caf::actor_cast<arrival_listener_actor>(listener));
    sched.run();
    auto d = nlohmann::json::parse(
      ask<std::string>(actors.queue_service, dump_atom::value));
    CHECK_EQ(d["listeners"], 1);
    put(2);
    CHECK_EQ(*count, 1);
    CHECK_EQ(*last, store->dispatched_offset());
    put(1, 1);
    CHECK_EQ(*count, 2);
    // An exited listener is dropped.
    caf::anon_send_exit(listener, caf::exit_reason::user_shutdown);
    sched.run();
    d = nlohmann::json::parse(
      ask<std::string>(actors.queue_service, dump_atom::value));
    CHECK_EQ(d["listeners"], 0);
  }
}
