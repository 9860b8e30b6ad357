#include "runtime/common/json_file.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/support/temp_dir.hpp"

#include "messages/common/errors.hpp"

namespace fs = std::filesystem;

using rmq::test::read_file;
using rmq::test::write_file;

TEST_SUITE("runtime.json_file") {
  TEST_CASE("save and load round-trip, creating the folders") {
    rmq::test::temp_dir dir;
    auto path = dir.path() + "/config/a.json";
    nlohmann::json doc{{"x", 1}, {"y", {{"z", "text"}}}};
    REQUIRE_FALSE(rmq::json_file::save(path, doc));
    CHECK_EQ(read_file(path), doc.dump());
    CHECK_FALSE(fs::exists(path + ".tmp"));
    auto loaded = rmq::json_file::load(path);
    REQUIRE(loaded);
    CHECK_EQ(*loaded, doc);
    // Saving again replaces the whole file.
    REQUIRE_FALSE(rmq::json_file::save(path, nlohmann::json{{"x", 2}}));
    CHECK_EQ(read_file(path), R"({"x":2})");
  }

  TEST_CASE("a missing file is a null document") {
    rmq::test::temp_dir dir;
    auto loaded = rmq::json_file::load(dir.path() + "/none.json");
    REQUIRE(loaded);
    CHECK(loaded->is_null());
  }

  TEST_CASE("empty or broken files are corrupt, folders are io errors") {
    rmq::test::temp_dir dir;
    auto path = dir.path() + "/a.json";
    write_file(path, "");
    CHECK_EQ(rmq::json_file::load(path).error(), rmq::errc::corrupt_data);
    write_file(path, "{\"x\":");
    CHECK_EQ(rmq::json_file::load(path).error(), rmq::errc::corrupt_data);
    fs::create_directories(dir.path() + "/d.json");
    CHECK_EQ(rmq::json_file::load(dir.path() + "/d.json").error(),
             rmq::errc::io_error);
    CHECK_EQ(rmq::json_file::save(dir.path() + "/d.json", 1),
             rmq::errc::io_error);
  }

  TEST_CASE("invalid UTF-8 is refused and the old file stays") {
    rmq::test::temp_dir dir;
    auto path = dir.path() + "/a.json";
    REQUIRE_FALSE(rmq::json_file::save(path, nlohmann::json{{"x", 1}}));
    auto err = rmq::json_file::save(path, nlohmann::json{{"x", "\xff"}});
    CHECK_EQ(err, rmq::errc::invalid_parameter);
    CHECK_EQ(read_file(path), R"({"x":1})");
  }

  TEST_CASE("keep_aside picks the first free .corrupt name") {
    rmq::test::temp_dir dir;
    auto path = dir.path() + "/a.json";
    write_file(path, "one");
    write_file(path + ".corrupt.1", "older");
    auto moved = rmq::json_file::keep_aside(path);
    REQUIRE(moved);
    CHECK_EQ(*moved, path + ".corrupt.2");
    CHECK_EQ(read_file(*moved), "one");
    CHECK_EQ(read_file(path + ".corrupt.1"), "older");
    CHECK_FALSE(fs::exists(path));
    CHECK_EQ(rmq::json_file::keep_aside(path).error(), rmq::errc::io_error);
  }

  TEST_CASE("load_config: damaged files go aside, the caller starts as "
            "without a file; other trouble leaves the file alone") {
    rmq::test::temp_dir dir;
    auto path = dir.path() + "/t.json";
    int value = -1;
    std::vector<bool> saw_null;
    auto apply = [&](const nlohmann::json& doc) -> caf::error {
      saw_null.push_back(doc.is_null());
      if (doc.is_null()) {
        value = 0;
        return {};
      }
      if (!doc.is_object() || !doc.contains("v"))
        return rmq::make_error(rmq::errc::corrupt_data, "no v");
      if (doc["v"] == 99)
        return rmq::make_error(rmq::errc::invalid_parameter, "v differs");
      value = doc["v"].get<int>();
      return {};
    };
    // Missing: apply sees null once.
    auto none = rmq::json_file::load_config(path, "test", "starts at 0", apply);
    CHECK_EQ(value, 0);
    CHECK(none.corrupt_copy.empty());
    CHECK_FALSE(none.blocked);
    // Fine.
    write_file(path, R"({"v": 7})");
    saw_null.clear();
    CHECK_FALSE(
      rmq::json_file::load_config(path, "test", "starts at 0", apply).blocked);
    CHECK_EQ(value, 7);
    // Not JSON, then the wrong shape: moved aside, apply then sees null.
    for (auto text : {"{\"v\": ", "[1]"}) {
      CAPTURE(text);
      write_file(path, text);
      saw_null.clear();
      auto res = rmq::json_file::load_config(path, "test", "starts at 0",
                                             apply);
      CHECK_FALSE(res.blocked);
      CHECK_FALSE(res.corrupt_copy.empty());
      CHECK_EQ(read_file(res.corrupt_copy), text);
      CHECK_FALSE(fs::exists(path));
      CHECK_EQ(value, 0);
      CHECK(saw_null.back());
    }
    // A setting that differs is no damage: the file stays, blocked.
    write_file(path, R"({"v": 99})");
    auto differs = rmq::json_file::load_config(path, "test", "-", apply);
    CHECK(differs.blocked == rmq::errc::invalid_parameter);
    CHECK(differs.corrupt_copy.empty());
    CHECK_EQ(read_file(path), R"({"v": 99})");
    // Unreadable (a folder): blocked, untouched.
    fs::remove(path);
    fs::create_directories(path);
    auto unreadable = rmq::json_file::load_config(path, "test", "-", apply);
    CHECK(unreadable.blocked == rmq::errc::io_error);
    CHECK(fs::is_directory(path));
  }
}
