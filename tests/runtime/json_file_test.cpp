#include "runtime/json_file.hpp"

#include <filesystem>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/support/temp_dir.hpp"

#include "messages/errors.hpp"

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
}
