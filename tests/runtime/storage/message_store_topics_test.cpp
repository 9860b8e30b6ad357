#include "runtime/storage/message_store.hpp"

#include <filesystem>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "tests/runtime/storage/store_test_util.hpp"

using namespace rmq;
using namespace rmq::storage;
using rmq::test::make_message;

TEST_SUITE("runtime.message_store") {
  TEST_CASE("a deleted topic's consume queues are gone, also after a "
            "restart, and the topic starts again at offset 0") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    auto st = test::open_store(cfg);
    auto put = [&](const std::string& topic, int32_t q,
                   const std::string& body) {
      auto res = st->put(make_message(topic, q, body), 1'700'000'000'000, 0);
      REQUIRE_FALSE(res.error);
      return res;
    };
    put("T", 0, "a");
    put("T", 0, "b");
    put("T", 1, "c");
    put("U", 0, "u");
    REQUIRE(st->flush(st->write_offset()));
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    // Written, not dispatched yet: must not build a queue after the delete.
    put("T", 0, "late");
    REQUIRE(st->flush(st->write_offset()));
    auto removed = st->delete_topic("T");
    REQUIRE_MESSAGE(removed, describe(removed.error()));
    CHECK_EQ(*removed, 2u);
    CHECK_FALSE(std::filesystem::exists(dir.path() + "/consumequeue/T"));
    CHECK_EQ(st->offsets("T", 0), queue_offsets{0, 0});
    CHECK_EQ(st->offsets("T", 1), queue_offsets{0, 0});
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    CHECK_EQ(st->offsets("T", 0), queue_offsets{0, 0});
    CHECK_EQ(test::read_all(*st, "U"), std::vector<std::string>{"u"});
    // Sent again, the topic starts from 0.
    CHECK_EQ(put("T", 0, "new").queue_offset, 0);
    REQUIRE(st->flush(st->write_offset()));
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    CHECK_EQ(test::read_all(*st, "T"), std::vector<std::string>{"new"});
    // Deleting what does not exist removes nothing.
    auto none = st->delete_topic("Nope");
    REQUIRE(none);
    CHECK_EQ(*none, 0u);
    REQUIRE_FALSE(st->close());
    st.reset(); // one open store per folder
    // Recovery scans the last segment again (all of it here): the deleted
    // records build nothing, the new one is where it was.
    st = test::open_store(cfg);
    CHECK(st->recovery().corruptions.empty());
    CHECK_EQ(st->offsets("T", 0), queue_offsets{0, 1});
    CHECK_EQ(st->offsets("T", 1), queue_offsets{0, 0});
    CHECK_EQ(test::read_all(*st, "T"), std::vector<std::string>{"new"});
    CHECK_EQ(test::read_all(*st, "U"), std::vector<std::string>{"u"});
    // After a crash (no clean close) too.
    put("T", 0, "newer");
    REQUIRE(st->flush(st->write_offset()));
    st.reset();
    st = test::open_store(cfg);
    CHECK(st->recovery().crashed);
    CHECK(st->recovery().corruptions.empty());
    CHECK_EQ(test::read_all(*st, "T"),
             (std::vector<std::string>{"new", "newer"}));
    CHECK_EQ(st->offsets("T", 1), queue_offsets{0, 0});
    REQUIRE_FALSE(st->close());
  }
}
