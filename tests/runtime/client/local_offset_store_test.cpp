// Broadcasting offsets in a local file (RocketMQ LocalFileOffsetStore):
// written atomically with a .bak of the previous version, read back, a
// damaged file replaced by the .bak, a missing one empty.
#include "runtime/client/local_offset_store.hpp"

#include <filesystem>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/process/home_dir.hpp"
#include "tests/support/temp_dir.hpp"

using namespace rmq;

namespace fs = std::filesystem;

namespace {

const message_queue q0{"T", "broker-a", 0};
const message_queue q1{"T", "broker-a", 1};
const message_queue other{"U", "broker-b", 0};

struct fixture {
  test::temp_dir dir{"rmq-offsets"};
  std::string path = local_offset_path(dir.path(), "10.0.0.1@1234", "G");
};

} // namespace

TEST_SUITE("runtime.local_offset_store") {
  TEST_CASE("the default path is RocketMQ's") {
    CHECK_EQ(default_local_offset_dir(), home_dir() + "/.rocketmq_offsets");
    CHECK_EQ(local_offset_path("/d", "ip@inst", "G"),
             "/d/ip@inst/G/offsets.json");
  }

  TEST_CASE_FIXTURE(fixture, "a missing file is an empty table") {
    auto res = local_offset_file::load(path);
    REQUIRE(res);
    CHECK(res->offsets.empty());
    CHECK_EQ(res->from, local_offset_file::source::none);
    local_offset_store store{path};
    CHECK_FALSE(store.load());
    CHECK_FALSE(store.read(q0));
  }

  TEST_CASE_FIXTURE(fixture, "offsets are written and read back") {
    local_offset_store store{path};
    store.update(q0, 10);
    store.update(q1, 20);
    store.update(other, 5);
    REQUIRE_FALSE(store.persist({q0, q1, other}));
    CHECK(fs::exists(path));
    local_offset_store again{path};
    REQUIRE_FALSE(again.load());
    CHECK_EQ(again.read(q0), 10);
    CHECK_EQ(again.read(q1), 20);
    CHECK_EQ(again.offsets("T").size(), 2u);
    CHECK_EQ(again.offsets().size(), 3u);
    auto doc = nlohmann::json::parse(test::read_file(path));
    CHECK_EQ(doc["offset_table"].size(), 3u);
    CHECK_EQ(doc["offset_table"][0]["broker_name"], "broker-a");
  }

  TEST_CASE_FIXTURE(fixture, "increase-only updates never go back") {
    local_offset_store store{path};
    store.update(q0, 10);
    store.update(q0, 7, true);
    CHECK_EQ(store.read(q0), 10);
    store.update(q0, 12, true);
    CHECK_EQ(store.read(q0), 12);
    store.update(q0, 3);
    CHECK_EQ(store.read(q0), 3);
    store.remove(q0);
    CHECK_FALSE(store.read(q0));
  }

  TEST_CASE_FIXTURE(fixture, "persist writes only the queues named and "
                             "keeps the file's others") {
    local_offset_store store{path};
    store.update(q0, 10);
    store.update(q1, 20);
    REQUIRE_FALSE(store.persist({q0, q1}));
    store.remove(q1);
    store.update(q0, 11);
    REQUIRE_FALSE(store.persist({q0, q1}));
    auto res = local_offset_file::load(path);
    REQUIRE(res);
    CHECK_EQ(res->offsets.at(q0), 11);
    CHECK_EQ(res->offsets.at(q1), 20);
    // Nothing named: nothing written.
    store.update(q0, 99);
    REQUIRE_FALSE(store.persist({}));
    CHECK_EQ(local_offset_file::load(path)->offsets.at(q0), 11);
    // read_from_file takes the file's value into memory.
    auto from_file = store.read_from_file(q1);
    REQUIRE(from_file);
    CHECK_EQ(*from_file, std::optional<int64_t>{20});
    CHECK_EQ(store.read(q1), 20);
    auto none = store.read_from_file(other);
    REQUIRE(none);
    CHECK_FALSE(*none);
  }

  TEST_CASE_FIXTURE(fixture, "the .bak holds the previous version") {
    REQUIRE_FALSE(local_offset_file::save(path, {{q0, 1}}));
    CHECK_FALSE(fs::exists(path + ".bak"));
    REQUIRE_FALSE(local_offset_file::save(path, {{q0, 2}}));
    REQUIRE_FALSE(local_offset_file::save(path, {{q0, 3}}));
    auto bak = local_offset_file::load(path + ".bak");
    REQUIRE(bak);
    CHECK_EQ(bak->offsets.at(q0), 2);
    CHECK_EQ(local_offset_file::load(path)->offsets.at(q0), 3);
  }

  TEST_CASE_FIXTURE(fixture, "a damaged file falls back to the .bak") {
    REQUIRE_FALSE(local_offset_file::save(path, {{q0, 1}}));
    REQUIRE_FALSE(local_offset_file::save(path, {{q0, 2}}));
    SUBCASE("not JSON") {
      test::write_file(path, "{\"offset_table\": [");
    }
    SUBCASE("empty") {
      test::write_file(path, "");
    }
    SUBCASE("wrong shape") {
      test::write_file(path, R"({"offset_table":[{"topic":1}]})");
    }
    SUBCASE("missing") {
      fs::remove(path);
    }
    auto res = local_offset_file::load(path);
    REQUIRE(res);
    CHECK_EQ(res->from, local_offset_file::source::bak);
    CHECK_EQ(res->offsets.at(q0), 1);
    local_offset_store store{path};
    REQUIRE_FALSE(store.load());
    CHECK_EQ(store.read(q0), 1);
  }

  TEST_CASE_FIXTURE(fixture, "a damaged file is kept aside, and the next "
                             "save keeps the good .bak") {
    REQUIRE_FALSE(local_offset_file::save(path, {{q0, 1}}));
    REQUIRE_FALSE(local_offset_file::save(path, {{q0, 2}}));
    test::write_file(path, "garbage");
    local_offset_store store{path};
    REQUIRE_FALSE(store.load());
    CHECK_EQ(store.read(q0), 1);
    CHECK(fs::exists(path + ".corrupt.1"));
    CHECK_EQ(test::read_file(path + ".corrupt.1"), "garbage");
    store.update(q0, 5);
    REQUIRE_FALSE(store.persist({q0}));
    CHECK_EQ(local_offset_file::load(path)->offsets.at(q0), 5);
    // The .bak is the version replaced: none (it was moved aside), so the
    // old good .bak stays.
    CHECK_EQ(local_offset_file::load(path + ".bak")->offsets.at(q0), 1);
  }

  TEST_CASE_FIXTURE(fixture, "damaged file and damaged .bak: an error") {
    REQUIRE_FALSE(local_offset_file::save(path, {{q0, 1}}));
    test::write_file(path, "garbage");
    test::write_file(path + ".bak", "garbage too");
    auto res = local_offset_file::load(path);
    REQUIRE_FALSE(res);
    CHECK(res.error() == errc::corrupt_data);
    local_offset_store store{path};
    CHECK(store.load() == errc::corrupt_data);
  }

  TEST_CASE_FIXTURE(fixture, "a damaged file without a .bak is empty") {
    REQUIRE_FALSE(local_offset_file::save(path, {{q0, 1}}));
    test::write_file(path, "garbage");
    auto res = local_offset_file::load(path);
    REQUIRE(res);
    CHECK(res->offsets.empty());
    CHECK_EQ(res->from, local_offset_file::source::none);
    CHECK_FALSE(res->main_error.empty());
  }
}
