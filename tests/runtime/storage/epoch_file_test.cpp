// Epoch files and the history two logs share.
#include "runtime/storage/epoch_file.hpp"

#include <fstream>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "tests/support/temp_dir.hpp"

using namespace rmq;
using namespace rmq::storage;

TEST_SUITE("runtime.storage_epoch_file") {
  TEST_CASE("terms are kept across a restart and must grow") {
    test::temp_dir dir;
    auto path = dir.path() + "/epoch.json";
    {
      auto f = epoch_file::load(path);
      REQUIRE(f);
      CHECK(f->entries().empty());
      CHECK_EQ(f->last_epoch(), 0);
      REQUIRE_FALSE(f->append(1, 0));
      REQUIRE_FALSE(f->append(2, 800));
      CHECK(f->append(2, 900) == errc::invalid_parameter); // same epoch
      CHECK(f->append(3, 700) == errc::invalid_parameter); // goes back
    }
    auto f = epoch_file::load(path);
    REQUIRE(f);
    CHECK_EQ(f->entries(), (std::vector<epoch_entry>{{1, 0}, {2, 800}}));
    CHECK_EQ(f->last_epoch(), 2);
    // The log cut at 500: term 2 had not begun there.
    REQUIRE_FALSE(f->truncate(500));
    CHECK_EQ(f->entries(), (std::vector<epoch_entry>{{1, 0}}));
    auto again = epoch_file::load(path);
    REQUIRE(again);
    CHECK_EQ(again->entries(), f->entries());
  }

  TEST_CASE("a damaged or disordered file is an error, not a guess") {
    test::temp_dir dir;
    auto path = dir.path() + "/epoch.json";
    for (
      auto text :
      {"{oops", R"({"epochs":[{"epoch":1}]})",
       R"({"epochs":[{"epoch":2,"startOffset":0},{"epoch":1,"startOffset":5}]})",
       R"({"nope":[]})"}) {
      CAPTURE(text);
      std::ofstream{path} << text;
      CHECK_FALSE(epoch_file::load(path));
    }
  }

  TEST_CASE("the history two logs share") {
    // The same term, one log longer: the shorter end.
    CHECK_EQ(consistent_point({{1, 0}}, 500, {{1, 0}}, 900), 500);
    // A slave ahead of a new master: the old master's term 1 reached 1000
    // on the slave, the new master began term 2 at 800.
    CHECK_EQ(consistent_point({{1, 0}}, 1000, {{1, 0}, {2, 800}}, 1200), 800);
    // A slave behind: it copies on from its own end.
    CHECK_EQ(consistent_point({{1, 0}}, 500, {{1, 0}, {2, 800}}, 1200), 500);
    // Both saw term 2 begin at 800: the latest shared term decides.
    CHECK_EQ(consistent_point({{1, 0}, {2, 800}}, 1100,
                              {{1, 0}, {2, 800}, {3, 1000}}, 1500),
             1000);
    // A term begun at two offsets is not shared; an earlier one is.
    CHECK_EQ(consistent_point({{1, 0}, {2, 600}}, 700, {{1, 0}, {2, 800}}, 900),
             600);
    // Nothing shared (another group's log, or none at all).
    CHECK_EQ(consistent_point({{1, 0}}, 100, {{4, 0}}, 100), -1);
    CHECK_EQ(consistent_point({}, 100, {{1, 0}}, 100), -1);
  }
}
