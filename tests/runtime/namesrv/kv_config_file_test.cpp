#include "runtime/namesrv/kv_config_file.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

#include "tests/support/temp_dir.hpp"

#include "messages/common/errors.hpp"

namespace fs = std::filesystem;

using rmq::test::read_file;
using rmq::test::write_file;

namespace {

const rmq::kv_config_map sample{
  {"ORDER_TOPIC_CONFIG", {{"TopicA", "broker-a:8;broker-b:8"}}},
  {"ns", {{"empty", ""}, {"k", "v"}}},
};

} // namespace

TEST_SUITE("runtime.kv_config_file") {
  TEST_CASE("save writes RocketMQ's configTable format") {
    rmq::test::temp_dir dir{"rmq-kv-file"};
    auto file = fs::path{dir.path()} / "kvConfig.json";
    REQUIRE_FALSE(rmq::kv_config_file::save(file.string(), sample));
    CHECK_EQ(read_file(file), R"({"configTable":{"ORDER_TOPIC_CONFIG":)"
                              R"({"TopicA":"broker-a:8;broker-b:8"},)"
                              R"("ns":{"empty":"","k":"v"}}})");
    CHECK_FALSE(fs::exists(file.string() + ".tmp"));
  }

  TEST_CASE("an empty table is saved as an empty configTable") {
    CHECK_EQ(rmq::kv_config_file::to_text({}), R"({"configTable":{}})");
  }

  TEST_CASE("load returns what save wrote") {
    rmq::test::temp_dir dir{"rmq-kv-file"};
    auto file = (fs::path{dir.path()} / "kvConfig.json").string();
    REQUIRE_FALSE(rmq::kv_config_file::save(file, sample));
    auto loaded = rmq::kv_config_file::load(file);
    REQUIRE(loaded);
    CHECK_EQ(*loaded, sample);
  }

  TEST_CASE("save replaces the previous table") {
    rmq::test::temp_dir dir{"rmq-kv-file"};
    auto file = (fs::path{dir.path()} / "kvConfig.json").string();
    REQUIRE_FALSE(rmq::kv_config_file::save(file, sample));
    rmq::kv_config_map smaller{{"ns", {{"k", "v2"}}}};
    REQUIRE_FALSE(rmq::kv_config_file::save(file, smaller));
    auto loaded = rmq::kv_config_file::load(file);
    REQUIRE(loaded);
    CHECK_EQ(*loaded, smaller);
  }

  TEST_CASE("save creates missing parent directories") {
    rmq::test::temp_dir dir{"rmq-kv-file"};
    auto file = fs::path{dir.path()} / "a" / "b" / "kvConfig.json";
    REQUIRE_FALSE(rmq::kv_config_file::save(file.string(), sample));
    CHECK(fs::exists(file));
  }

  TEST_CASE("load of a file written by RocketMQ keeps all entries") {
    rmq::test::temp_dir dir{"rmq-kv-file"};
    auto file = fs::path{dir.path()} / "kvConfig.json";
    // Pretty-printed, with whitespace, as other writers may produce it.
    write_file(file,
               "{\n\t\"configTable\":{\n\t\t\"ns\":{\"k\":\"v\"}\n\t}\n}");
    auto loaded = rmq::kv_config_file::load(file.string());
    REQUIRE(loaded);
    CHECK_EQ(*loaded, rmq::kv_config_map{{"ns", {{"k", "v"}}}});
  }

  TEST_CASE("a missing file loads as an empty table") {
    rmq::test::temp_dir dir{"rmq-kv-file"};
    auto loaded = rmq::kv_config_file::load(
      (fs::path{dir.path()} / "none.json").string());
    REQUIRE(loaded);
    CHECK(loaded->empty());
  }

  TEST_CASE("corrupt files are reported as corrupt_data") {
    rmq::test::temp_dir dir{"rmq-kv-file"};
    auto file = fs::path{dir.path()} / "kvConfig.json";
    for (auto text : {"", "{\"configTable\":{\"ns\":{\"k\":", "[1,2]",
                      R"({"configTable":[]})", R"({"configTable":{"ns":1}})",
                      R"({"configTable":{"ns":{"k":7}}})"}) {
      CAPTURE(text);
      write_file(file, text);
      auto loaded = rmq::kv_config_file::load(file.string());
      REQUIRE_FALSE(loaded);
      CHECK(loaded.error() == rmq::errc::corrupt_data);
      CHECK_NE(rmq::error_detail(loaded.error()).find(file.string()),
               std::string::npos);
    }
  }

  TEST_CASE("a directory at the path is an io_error, not corrupt data") {
    rmq::test::temp_dir dir{"rmq-kv-file"};
    auto loaded = rmq::kv_config_file::load(dir.path());
    REQUIRE_FALSE(loaded);
    CHECK(loaded.error() == rmq::errc::io_error);
  }

  TEST_CASE("save into a non-writable place fails with io_error") {
    rmq::test::temp_dir dir{"rmq-kv-file"};
    // A regular file where the parent directory should be: fails even as root.
    write_file(fs::path{dir.path()} / "blocker", "x");
    auto file = fs::path{dir.path()} / "blocker" / "kvConfig.json";
    auto err = rmq::kv_config_file::save(file.string(), sample);
    CHECK(err == rmq::errc::io_error);
    CHECK_FALSE(rmq::error_detail(err).empty());
  }

  TEST_CASE("save rejects strings that are not valid UTF-8") {
    rmq::test::temp_dir dir{"rmq-kv-file"};
    auto file = fs::path{dir.path()} / "kvConfig.json";
    rmq::kv_config_map bad{{"ns", {{"k", "\xff\xfe"}}}};
    auto err = rmq::kv_config_file::save(file.string(), bad);
    CHECK(err == rmq::errc::invalid_parameter);
    CHECK_FALSE(fs::exists(file));
  }

} // TEST_SUITE
