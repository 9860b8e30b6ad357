// The atomic JSON file: a missing file is a null document, a saved one
// reads back, no temp file stays, parent folders are created, corrupt and
// empty files are errors, an unwritable path is an io_error.
#include "runtime/json_file.hpp"

#include <filesystem>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/errors.hpp"
#include "tests/support/temp_dir.hpp"

using namespace rmq;

TEST_SUITE("runtime.json_file") {
  TEST_CASE("a saved document reads back; a missing one is null") {
    test::temp_dir dir{"rmq-json"};
    auto path = dir.path() + "/config/a.json";
    auto none = json_file::load(path);
    REQUIRE(none);
    CHECK(none->is_null());
    nlohmann::json doc{{"x", 1}, {"y", {"a", "b"}}};
    REQUIRE_FALSE(json_file::save(path, doc));
    CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
    auto back = json_file::load(path);
    REQUIRE(back);
    CHECK_EQ(*back, doc);
    // A second save replaces the first.
    REQUIRE_FALSE(json_file::save(path, nlohmann::json{{"x", 2}}));
    CHECK_EQ((*json_file::load(path))["x"], 2);
  }

  TEST_CASE("corrupt, empty and unwritable files are errors") {
    test::temp_dir dir{"rmq-json"};
    auto path = dir.path() + "/a.json";
    test::write_file(path, "{\"x\": ");
    auto bad = json_file::load(path);
    REQUIRE_FALSE(bad);
    CHECK(bad.error() == errc::corrupt_data);
    test::write_file(path, "");
    CHECK(json_file::load(path).error() == errc::corrupt_data);
    CHECK(json_file::load(dir.path()).error() == errc::io_error);
    // A file where a folder should be.
    auto err = json_file::save(path + "/b.json", nlohmann::json{{"x", 1}});
    CHECK(err == errc::io_error);
    // Invalid UTF-8 cannot be encoded.
    err = json_file::save(dir.path() + "/c.json", nlohmann::json("\xff"));
    CHECK(err == errc::invalid_parameter);
  }
}
