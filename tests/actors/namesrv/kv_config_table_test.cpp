#include "actors/namesrv/kv_config_table.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/validators.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;

using rmq::test::read_file;
using rmq::test::write_file;

using rmq::delete_kv_config_request;
using rmq::get_kv_config_request;
using rmq::get_kv_list_by_namespace_request;
using rmq::put_kv_config_request;

namespace {

struct fixture : rmq::test::deterministic_fixture {
  rmq::test::temp_dir tmp{"rmq-kv-table"};
  fs::path dir{tmp.path()};

  std::string file() const {
    return (dir / "kvConfig.json").string();
  }

  rmq::kv_config_table_actor spawn_table(const std::string& path) {
    return spawn(rmq::kv_config_table, path);
  }

  void put(const rmq::kv_config_table_actor& table, std::string ns,
           std::string key, std::string value) {
    ask<caf::ok_atom>(table, put_kv_config_request{ns, key, value});
  }

  std::string get(const rmq::kv_config_table_actor& table, std::string ns,
                  std::string key) {
    return ask<std::string>(table, get_kv_config_request{ns, key});
  }

  nlohmann::json dump(const rmq::kv_config_table_actor& table) {
    return nlohmann::json::parse(
      ask<std::string>(table, rmq::dump_atom::value));
  }

  // The same as the fixture's ask_error<T>.
  template <class T, class... Ts>
  caf::error ask_failure(const rmq::kv_config_table_actor& table, Ts&&... xs) {
    caf::error result;
    request(table, std::forward<Ts>(xs)...)
      .receive([&](const T&) { FAIL("expected an error"); },
               [&](const caf::error& err) { result = err; });
    return result;
  }
};

} // namespace

TEST_SUITE("namesrv.kv_config_table") {
  TEST_CASE_FIXTURE(fixture, "a put value is returned by get") {
    auto table = spawn_table("");
    put(table, "ORDER_TOPIC_CONFIG", "TopicA", "broker-a:8");
    CHECK_EQ(get(table, "ORDER_TOPIC_CONFIG", "TopicA"), "broker-a:8");
    put(table, "ORDER_TOPIC_CONFIG", "TopicA", "broker-b:4");
    CHECK_EQ(get(table, "ORDER_TOPIC_CONFIG", "TopicA"), "broker-b:4");
  }

  TEST_CASE_FIXTURE(fixture, "an empty value is a value") {
    auto table = spawn_table("");
    put(table, "ns", "k", "");
    CHECK_EQ(get(table, "ns", "k"), "");
  }

  TEST_CASE_FIXTURE(fixture, "get of a missing key answers query_not_found") {
    auto table = spawn_table("");
    put(table, "ns", "other", "v");
    for (auto ns : {"ns", "unknown"}) {
      auto err = ask_failure<std::string>(table,
                                          get_kv_config_request{ns, "k"});
      CHECK(err == rmq::errc::query_not_found);
      CHECK_EQ(rmq::error_detail(err),
               std::string{"No config item, Namespace: "} + ns + " Key: k");
    }
  }

  TEST_CASE_FIXTURE(fixture, "a deleted key is gone and delete is idempotent") {
    auto table = spawn_table("");
    put(table, "ns", "k", "v");
    ask<caf::ok_atom>(table, delete_kv_config_request{"ns", "k"});
    auto err = ask_failure<std::string>(table,
                                        get_kv_config_request{"ns", "k"});
    CHECK(err == rmq::errc::query_not_found);
    ask<caf::ok_atom>(table, delete_kv_config_request{"ns", "k"});
    ask<caf::ok_atom>(table, delete_kv_config_request{"none", "k"});
    CHECK_EQ(dump(table)["deletes"], 1);
  }

  TEST_CASE_FIXTURE(fixture,
                    "list returns one namespace and drops empty ones") {
    auto table = spawn_table("");
    put(table, "ns", "a", "1");
    put(table, "ns", "b", "2");
    put(table, "other", "c", "3");
    auto kvs = ask<rmq::kv_table>(table,
                                  get_kv_list_by_namespace_request{"ns"});
    CHECK_EQ(kvs.table,
             std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}});
    ask<caf::ok_atom>(table, delete_kv_config_request{"other", "c"});
    auto err = ask_failure<rmq::kv_table>(
      table, get_kv_list_by_namespace_request{"other"});
    CHECK(err == rmq::errc::query_not_found);
    CHECK_EQ(rmq::error_detail(err), "No config item, Namespace: other");
  }

  TEST_CASE_FIXTURE(fixture,
                    "invalid namespaces, keys and values are rejected") {
    auto table = spawn_table("");
    for (auto req : {put_kv_config_request{"", "k", "v"},
                     put_kv_config_request{"ns", "", "v"},
                     put_kv_config_request{"ns", "a\nb", "v"},
                     put_kv_config_request{"ns", std::string(256, 'k'), "v"},
                     put_kv_config_request{"ns", "k", "\xff"}}) {
      CAPTURE(req.key);
      auto err = ask_failure<caf::ok_atom>(table, req);
      CHECK(err == rmq::errc::invalid_parameter);
    }
    auto state = dump(table);
    CHECK(state["config_table"].empty());
    CHECK_EQ(state["puts"], 0);
  }

  TEST_CASE_FIXTURE(fixture, "dump shows rows and counters") {
    auto table = spawn_table(file());
    put(table, "ns", "k", "v");
    put(table, "ns", "k", "v"); // unchanged: no second save
    ask<caf::ok_atom>(table, delete_kv_config_request{"ns", "gone"});
    auto expected = nlohmann::json{
      {"actor", "kv_config_table"},
      {"path", file()},
      {"config_table", {{{"namespace", "ns"}, {"key", "k"}, {"value", "v"}}}},
      {"dirty", false},
      {"table_size", 4},
      {"max_table_size", rmq::default_max_kv_table_size},
      {"puts", 2},
      {"deletes", 0},
      {"saves", 1},
      {"save_errors", 0},
    };
    CHECK_EQ(dump(table), expected);
  }

  TEST_CASE_FIXTURE(fixture, "a new actor on the same path reads the table") {
    auto first = spawn_table(file());
    put(first, "ns", "k", "v");
    put(first, "ns", "gone", "x");
    ask<caf::ok_atom>(first, delete_kv_config_request{"ns", "gone"});
    CHECK_EQ(read_file(file()), R"({"configTable":{"ns":{"k":"v"}}})");
    auto second = spawn_table(file());
    CHECK_EQ(get(second, "ns", "k"), "v");
    auto err = ask_failure<std::string>(second,
                                        get_kv_config_request{"ns", "gone"});
    CHECK(err == rmq::errc::query_not_found);
  }

  TEST_CASE_FIXTURE(fixture, "save_atom writes the table even when clean") {
    write_file(file(), R"({"configTable":{"ns":{"k":"v"}}})");
    auto table = spawn_table(file());
    fs::remove(file());
    ask<caf::ok_atom>(table, rmq::save_atom::value);
    CHECK_EQ(read_file(file()), R"({"configTable":{"ns":{"k":"v"}}})");
    ask<caf::ok_atom>(spawn_table(""), rmq::save_atom::value);
  }

  TEST_CASE_FIXTURE(fixture, "a corrupt file is moved aside and the table "
                             "starts empty") {
    write_file(file(), R"({"configTable":{"ns":)");
    auto table = spawn_table(file());
    CHECK_EQ(read_file(file() + ".corrupt.1"), R"({"configTable":{"ns":)");
    CHECK_FALSE(fs::exists(file()));
    CHECK(dump(table)["config_table"].empty());
    put(table, "ns", "k", "v");
    CHECK_EQ(read_file(file()), R"({"configTable":{"ns":{"k":"v"}}})");
  }

  TEST_CASE_FIXTURE(fixture, "each corrupt file at start is kept under a new "
                             "name") {
    for (int i = 1; i <= 3; ++i) {
      write_file(file(), "corrupt #" + std::to_string(i));
      auto table = spawn_table(file());
      CHECK(dump(table)["config_table"].empty());
    }
    for (int i = 1; i <= 3; ++i)
      CHECK_EQ(read_file(file() + ".corrupt." + std::to_string(i)),
               "corrupt #" + std::to_string(i));
    CHECK_FALSE(fs::exists(file()));
  }

  TEST_CASE_FIXTURE(fixture, "a failed save answers io_error and rolls the "
                             "change back") {
    // A regular file where the directory should be: fails even as root.
    write_file(dir / "blocker", "x");
    auto path = (dir / "blocker" / "kvConfig.json").string();
    auto table = spawn_table(path);
    auto err = ask_failure<caf::ok_atom>(table,
                                         put_kv_config_request{"ns", "k", "v"});
    CHECK(err == rmq::errc::io_error);
    // Not on disk, so not answered either.
    err = ask_failure<std::string>(table, get_kv_config_request{"ns", "k"});
    CHECK(err == rmq::errc::query_not_found);
    auto state = dump(table);
    CHECK_EQ(state["save_errors"], 1);
    CHECK_EQ(state["dirty"], false);
    CHECK(state["config_table"].empty());
    // Once the disk is fixed, the retried put is written.
    fs::remove(dir / "blocker");
    put(table, "ns", "k", "v");
    CHECK_EQ(read_file(path), R"({"configTable":{"ns":{"k":"v"}}})");
    // An overwrite and a delete that fail keep the value on disk.
    fs::remove_all(dir / "blocker");
    write_file(dir / "blocker", "x");
    err = ask_failure<caf::ok_atom>(table,
                                    put_kv_config_request{"ns", "k", "w"});
    CHECK(err == rmq::errc::io_error);
    CHECK_EQ(get(table, "ns", "k"), "v");
    err = ask_failure<caf::ok_atom>(table, delete_kv_config_request{"ns", "k"});
    CHECK(err == rmq::errc::io_error);
    CHECK_EQ(get(table, "ns", "k"), "v");
    state = dump(table);
    CHECK_EQ(state["deletes"], 0);
    CHECK_EQ(state["save_errors"], 3);
  }

  TEST_CASE_FIXTURE(fixture, "values and tables over the limit are refused") {
    auto table = spawn_table(file());
    put(table, "ns", "max", std::string(rmq::max_kv_value_size, 'v'));
    auto err = ask_failure<caf::ok_atom>(
      table, put_kv_config_request{
               "ns", "big", std::string(rmq::max_kv_value_size + 1, 'v')});
    CHECK(err == rmq::errc::invalid_parameter);
    CHECK_NE(rmq::error_detail(err).find("65536"), std::string::npos);
    err = ask_failure<std::string>(table, get_kv_config_request{"ns", "big"});
    CHECK(err == rmq::errc::query_not_found);
    auto on_disk = read_file(file());
    CHECK_LT(on_disk.size(), rmq::max_kv_value_size + 100);
  }

  TEST_CASE("a table over its size limit refuses growth but not shrinking") {
    rmq::kv_config_table_state st;
    st.load("");
    st.max_table_size = 100;
    CHECK_FALSE(st.put({"ns", "a", std::string(40, 'x')})); // 43 bytes
    CHECK_FALSE(st.put({"ns", "b", std::string(50, 'x')})); // 96 in all
    auto err = st.put({"ns", "c", "xx"});                   // 101
    CHECK(err == rmq::errc::invalid_parameter);
    CHECK_FALSE(static_cast<bool>(st.get({"ns", "c"})));
    CHECK_FALSE(st.put({"ns", "b", "short"})); // shrinking is fine
    CHECK_FALSE(st.put({"ns", "c", "xx"}));    // and then there is room
    CHECK_EQ(st.table_size(), 43u + 8u + 5u);
    st.max_table_size = 10;                // e.g. a larger file loaded
    CHECK_FALSE(st.put({"ns", "a", "y"})); // still shrinks
    CHECK_FALSE(st.erase({"ns", "c"}));
    CHECK(st.put({"ns", "d", "z"}) == rmq::errc::invalid_parameter);
  }

  TEST_CASE_FIXTURE(fixture, "an unreadable file refuses every change and "
                             "stays untouched") {
    fs::create_directory(file()); // exists, but cannot be read as a table
    auto table = spawn_table(file());
    auto err = ask_failure<caf::ok_atom>(table,
                                         put_kv_config_request{"ns", "k", "v"});
    CHECK(err == rmq::errc::io_error);
    err = ask_failure<std::string>(table, get_kv_config_request{"ns", "k"});
    CHECK(err == rmq::errc::query_not_found); // rolled back
    CHECK(fs::is_directory(file()));          // untouched
    CHECK_FALSE(fs::exists(file() + ".corrupt.1"));
  }

  TEST_CASE("the state works without an actor system") {
    rmq::kv_config_table_state st;
    st.load("");
    CHECK_FALSE(st.put({"ns", "k", "v"}));
    CHECK_EQ(*st.get({"ns", "k"}), "v");
    CHECK_FALSE(st.erase({"ns", "k"}));
    CHECK(st.config_table.empty());
    CHECK_EQ(st.saves, 0); // in memory only
  }

} // TEST_SUITE
