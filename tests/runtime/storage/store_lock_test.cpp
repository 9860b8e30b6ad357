// One process per store: the lock is taken before the store is read, a
// second holder is refused at once naming the first, and the lock goes
// with its holder.
#include <string>

#include <unistd.h>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/storage/store_lock.hpp"
#include "runtime/storage/store_verifier.hpp"
#include "tests/runtime/storage/store_test_util.hpp"

using namespace rmq;
using namespace rmq::storage;

TEST_SUITE("runtime.store_lock") {
  TEST_CASE("a second lock of a folder is refused with the holder's pid") {
    test::temp_dir dir;
    auto first = store_lock::acquire(dir.path() + "/store");
    REQUIRE_MESSAGE(first, describe(first.error()));
    CHECK(first->held());
    auto second = store_lock::acquire(dir.path() + "/store");
    REQUIRE_FALSE(second);
    auto text = describe(second.error());
    CHECK_NE(text.find(dir.path() + "/store"), std::string::npos);
    CHECK_NE(text.find("pid " + std::to_string(::getpid())), std::string::npos);
    // Released with its holder: the next one gets it.
    *first = store_lock{};
    auto third = store_lock::acquire(dir.path() + "/store");
    CHECK(third);
  }

  TEST_CASE("an open store refuses a second open and verifyStore, and "
            "neither changed a byte of it") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    auto st = test::open_store(cfg);
    test::put_n(*st, 20);
    auto before = test::read_file(test::segment_path(dir.path(), 0));
    auto again = message_store::open(cfg, 0);
    REQUIRE_FALSE(again);
    CHECK_NE(describe(again.error()).find("in use by another process"),
             std::string::npos);
    auto rep = verify_store(dir.path());
    REQUIRE_FALSE(rep);
    CHECK_NE(describe(rep.error()).find("in use"), std::string::npos);
    CHECK_EQ(test::read_file(test::segment_path(dir.path(), 0)), before);
    CHECK_EQ(test::read_all(*st).size(), 20u);
    REQUIRE_FALSE(st->close());
    st.reset();
    // Closed and dropped: the folder opens again with everything in it.
    auto reopened = test::open_store(cfg);
    CHECK_EQ(test::read_all(*reopened).size(), 20u);
    auto verified = verify_store(dir.path());
    CHECK_FALSE(verified); // the reopened store holds it again
  }
}
