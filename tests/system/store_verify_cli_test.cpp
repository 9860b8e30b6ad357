// rmq-admin verifyStore on a stopped store's files: exit 0 and "store OK"
// for a clean store, exit 1 naming each damaged file and offset otherwise.
#include <string>

#include <doctest/doctest.h>

#include "tests/runtime/storage/store_test_util.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace rmq;

namespace {

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

} // namespace

TEST_SUITE("system.store_verify") {
  TEST_CASE("verifyStore checks a stopped store offline") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    std::vector<put_result> res;
    {
      auto st = test::open_store(cfg);
      res = test::put_n(*st, 40);
      REQUIRE_FALSE(st->close());
    }
    auto ok = test::run_admin({"verifyStore", "--store-dir", dir.path()});
    CHECK_EQ(ok.rc, 0);
    CHECK(contains(ok.out, "records 40"));
    CHECK(contains(ok.out, "units 40"));
    CHECK(contains(ok.out, "store OK"));
    // One flipped body byte in a record in the middle of the log.
    auto victim = res[17];
    test::flip_byte(test::segment_path(dir.path(), 0),
                    static_cast<size_t>(victim.phys_offset + victim.size - 5));
    auto bad = test::run_admin({"verifyStore", "-d", dir.path()});
    CHECK_EQ(bad.rc, 1);
    auto offset = std::to_string(victim.phys_offset);
    CHECK(contains(bad.out, "commitlog/" + storage::offset_file_name(0)
                              + " offset " + offset + " length "
                              + std::to_string(victim.size)));
    CHECK(contains(bad.out, "body CRC mismatch"));
    CHECK(contains(bad.out, "consumequeue/T/0/" + storage::offset_file_name(0)
                              + " offset 17: unit 17 -> phys " + offset));
    CHECK(contains(bad.out, "problems 2"));
    CHECK(contains(bad.out, "store DAMAGED"));
    MESSAGE(bad.out);
  }

  TEST_CASE("verifyStore refuses bad arguments") {
    test::temp_dir dir;
    auto none = test::run_admin(
      {"verifyStore", "--store-dir", dir.path() + "/missing"});
    CHECK_EQ(none.rc, 1);
    CHECK(contains(none.out, "no store folder"));
    CHECK_EQ(test::run_admin({"verifyStore"}).rc, 2); // --store-dir missing
    CHECK(contains(test::run_admin({"--help"}).out, "verifyStore"));
  }

} // TEST_SUITE
