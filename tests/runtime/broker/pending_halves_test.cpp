// The transaction check service's bookkeeping of unresolved half messages
// (runtime/broker/pending_halves.hpp), without actors or a store.
#include "runtime/broker/pending_halves.hpp"

#include <string>

#include <doctest/doctest.h>

using namespace rmq;

namespace {

pending_half half(int64_t q, const std::string& key,
                  const std::string& group = "PG", int64_t stored = 1000) {
  pending_half e;
  e.queue_offset = q;
  e.phys_offset = q * 100;
  e.store_timestamp = stored;
  e.key = key;
  e.producer_group = group;
  return e;
}

} // namespace

TEST_SUITE("runtime.pending_halves") {
  TEST_CASE("halves read in order are pending until an op record names "
            "them") {
    pending_halves h;
    h.add_half(half(0, "A"));
    h.add_half(half(1, "B"));
    h.add_half(half(2, "C"));
    CHECK_EQ(h.size(), 3u);
    CHECK_EQ(h.half_cursor(), 3);
    CHECK_EQ(h.half_progress(), 0);
    h.add_op(0, {0}, "A");
    CHECK_EQ(h.size(), 2u);
    CHECK(h.find(0) == nullptr);
    CHECK_EQ(h.half_progress(), 1);
    CHECK_EQ(h.op_cursor(), 1);
    // By key alone, too (the producer answered for a copy's offsets).
    h.add_op(1, {}, "C");
    CHECK(h.find(2) == nullptr);
    CHECK_EQ(h.half_progress(), 1);
    h.add_op(2, {1}, "");
    CHECK_EQ(h.size(), 0u);
    CHECK_EQ(h.half_progress(), 3);
  }

  TEST_CASE("an op record read before its half resolves it ahead") {
    pending_halves h;
    h.add_op(0, {5}, "");
    CHECK_EQ(h.resolved_ahead(), 1u);
    CHECK(h.resolved("X", 5));
    CHECK_FALSE(h.resolved("X", 6));
    h.add_half(half(5, "X"));
    CHECK_EQ(h.size(), 0u);
    CHECK_EQ(h.resolved_ahead(), 0u);
    CHECK_EQ(h.half_cursor(), 6);
    // Below the cursor, a half that is not pending was resolved.
    CHECK(h.resolved("X", 5));
  }

  TEST_CASE("copies of one transaction: the newest is pending") {
    pending_halves h;
    h.add_half(half(0, "T"));
    h.add_half(half(3, "T")); // a check's copy
    CHECK_EQ(h.size(), 1u);
    CHECK(h.find(0) == nullptr);
    REQUIRE(h.find(3) != nullptr);
    CHECK_EQ(h.superseded(), 1);
    CHECK_FALSE(h.resolved("T", 0)); // a copy of it is pending
    // An op record for the first offset resolves the transaction.
    h.add_op(0, {0}, "T");
    CHECK_EQ(h.size(), 0u);
    CHECK(h.resolved("T", 3));
  }

  TEST_CASE("an older copy read after a newer one is not pending") {
    pending_halves h;
    h.start_at(4, 0);
    h.add_half(half(4, "T"));
    REQUIRE(h.replace(4, half(9, "T")));
    // A restart that read from 0 would meet the old copy after the new.
    pending_halves again;
    again.add_half(half(9, "T"));
    again.add_half(half(4, "T"));
    CHECK_EQ(again.size(), 1u);
    CHECK(again.find(9) != nullptr);
    CHECK_EQ(again.superseded(), 1);
  }

  TEST_CASE("a copy written after its transaction was resolved is resolved "
            "too") {
    pending_halves h;
    h.add_half(half(0, "T"));
    h.add_op(0, {0}, "T");
    CHECK_FALSE(h.replace(0, half(7, "T")));
    CHECK_EQ(h.size(), 0u);
    CHECK(h.resolved("T", 7));
    h.add_half(half(7, "T"));
    CHECK_EQ(h.size(), 0u);
  }

  TEST_CASE("the op progress keeps op records that name pending offsets") {
    pending_halves h;
    h.add_half(half(0, "A"));
    h.add_half(half(1, "B"));
    h.add_half(half(2, "C"));
    h.add_op(0, {1}, "B"); // names 1: after 0, which is pending
    h.add_op(1, {2}, "C");
    CHECK_EQ(h.half_progress(), 0);
    // A restart reads again from op 0: both records matter.
    CHECK_EQ(h.op_progress(), 0);
    h.add_op(2, {0}, "A");
    CHECK_EQ(h.half_progress(), 3);
    // No op record names an offset at or past the half progress.
    CHECK_EQ(h.op_progress(), 3);
    h.trim();
    CHECK_EQ(h.op_refs(), 0u);
  }

  TEST_CASE("retention below the pending halves drops them") {
    pending_halves h;
    h.add_half(half(0, "A"));
    h.add_half(half(1, "B"));
    // The next read finds the queue starting at 4: 0 and 1 are gone.
    h.half_queue_starts_at(4);
    CHECK_EQ(h.size(), 0u);
    CHECK_EQ(h.half_cursor(), 4);
    h.add_half(half(5, "C"));
    CHECK_EQ(h.size(), 1u);
    CHECK_EQ(h.half_progress(), 5);
  }

  TEST_CASE("a restart starts at the saved progress; skips and jumps move "
            "the cursors") {
    pending_halves h;
    h.start_at(10, 4);
    CHECK_EQ(h.half_cursor(), 10);
    CHECK_EQ(h.op_cursor(), 4);
    CHECK_EQ(h.half_progress(), 10);
    CHECK_EQ(h.op_progress(), 4);
    h.skip_half(10);
    h.skip_op(4);
    CHECK_EQ(h.half_cursor(), 11);
    CHECK_EQ(h.op_cursor(), 5);
    h.half_jump_to(8); // the queue is shorter than the cursor
    CHECK_EQ(h.half_cursor(), 8);
  }

  TEST_CASE("groups count their pending halves and the oldest store time") {
    pending_halves h;
    h.add_half(half(0, "A", "PG", 300));
    h.add_half(half(1, "B", "PG", 200));
    h.add_half(half(2, "C", "QG", 500));
    auto groups = h.groups();
    REQUIRE_EQ(groups.size(), 2u);
    CHECK_EQ(groups[0].producer_group, "PG");
    CHECK_EQ(groups[0].pending, 2);
    CHECK_EQ(groups[0].oldest_store_timestamp, 200);
    CHECK_EQ(groups[1].producer_group, "QG");
    CHECK_EQ(groups[1].pending, 1);
    h.erase(1);
    CHECK_EQ(h.groups()[0].oldest_store_timestamp, 300);
  }
}
