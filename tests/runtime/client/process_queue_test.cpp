// The process queue (RocketMQ ProcessQueue): the commit offset never passes
// an unprocessed message, flow control counts messages, bytes and span,
// and orderly batches are taken, committed and put back.
#include "runtime/client/process_queue.hpp"

#include <algorithm>
#include <random>
#include <set>

#include <doctest/doctest.h>

#include "tests/support/test_seed.hpp"

using namespace rmq;

namespace {

received_message msg(int64_t offset, size_t body_size = 10) {
  received_message m;
  m.topic = "T";
  m.queue_offset = offset;
  m.body.assign(body_size, 'x');
  return m;
}

std::vector<received_message> batch(int64_t first, int64_t n,
                                    size_t body_size = 10) {
  std::vector<received_message> result;
  for (int64_t i = 0; i < n; ++i)
    result.push_back(msg(first + i, body_size));
  return result;
}

std::vector<int64_t> offsets_of(const std::vector<received_message>& xs) {
  std::vector<int64_t> result;
  for (auto& x : xs)
    result.push_back(x.queue_offset);
  return result;
}

} // namespace

TEST_SUITE("runtime.process_queue") {
  TEST_CASE("nothing to commit before anything was added") {
    process_queue pq;
    CHECK_FALSE(pq.commit_offset());
    CHECK_FALSE(pq.remove({1, 2}));
    CHECK_EQ(pq.count(), 0u);
    CHECK_EQ(pq.max_span(), 0);
  }

  TEST_CASE("the commit offset is the smallest in process, or max + 1") {
    process_queue pq;
    CHECK_EQ(pq.add(batch(10, 5)), 5u);
    CHECK_EQ(pq.count(), 5u);
    CHECK_EQ(pq.bytes(), 50);
    CHECK_EQ(pq.commit_offset(), 10);
    // Later ones done first: still 10.
    CHECK_EQ(pq.remove({12, 14}), 10);
    CHECK_EQ(pq.remove({10}), 11);
    CHECK_EQ(pq.remove({11, 13}), 15);
    CHECK_EQ(pq.count(), 0u);
    CHECK_EQ(pq.bytes(), 0);
    // Unknown or repeated removals change nothing.
    CHECK_EQ(pq.remove({11, 99}), 15);
  }

  TEST_CASE("a message already held is not added twice") {
    process_queue pq;
    pq.add(batch(0, 3));
    CHECK_EQ(pq.add(batch(2, 3)), 2u);
    CHECK_EQ(pq.count(), 5u);
    CHECK_EQ(pq.bytes(), 50);
  }

  TEST_CASE("an older batch does not pull the empty-queue offset back") {
    process_queue pq;
    pq.add(batch(20, 2));
    pq.add(batch(5, 2));
    CHECK_EQ(pq.remove({5, 6, 20, 21}), 22);
  }

  TEST_CASE("flow control: count, bytes, then span") {
    process_queue_limits limits;
    CHECK_EQ(limits.max_count, 1000);
    CHECK_EQ(limits.max_bytes, 100 * 1024 * 1024);
    CHECK_EQ(limits.max_span, 2000);
    limits.max_count = 4;
    limits.max_bytes = 100;
    limits.max_span = 50;
    process_queue pq;
    pq.add(batch(0, 4));
    CHECK_EQ(pq.pause(limits), pause_reason::none);
    pq.add(batch(4, 1));
    CHECK_EQ(pq.pause(limits), pause_reason::count);
    CHECK(pq.should_pause(limits));
    pq.remove({1, 2, 3, 4});
    CHECK_FALSE(pq.should_pause(limits));
    pq.add({msg(5, 200)});
    CHECK_EQ(pq.pause(limits), pause_reason::size);
    pq.remove({5});
    // Offset 0 is slow: the span grows past the limit.
    pq.add({msg(60)});
    CHECK_EQ(pq.max_span(), 60);
    CHECK_EQ(pq.pause(limits), pause_reason::span);
    // Orderly consumers do not check the span.
    CHECK_EQ(pq.pause(limits, true), pause_reason::none);
    pq.remove({0});
    CHECK_EQ(pq.pause(limits), pause_reason::none);
  }

  TEST_CASE("orderly: take, commit, rollback, consume again") {
    process_queue pq;
    pq.add(batch(0, 5));
    auto first = pq.take(2);
    CHECK_EQ(offsets_of(first), (std::vector<int64_t>{0, 1}));
    CHECK_EQ(pq.taken().size(), 2u);
    CHECK_EQ(pq.waiting().size(), 3u);
    // Taken messages are still in process.
    CHECK_EQ(pq.count(), 5u);
    CHECK_EQ(pq.commit_offset(), 0);
    CHECK_EQ(pq.commit(), 2);
    CHECK_EQ(pq.count(), 3u);
    CHECK_EQ(pq.bytes(), 30);
    // Rolled back: the same messages again, in order.
    CHECK_EQ(offsets_of(pq.take(2)), (std::vector<int64_t>{2, 3}));
    pq.rollback();
    CHECK(pq.taken().empty());
    CHECK_EQ(offsets_of(pq.take(10)), (std::vector<int64_t>{2, 3, 4}));
    // One put back: the commit stops before it.
    pq.consume_again({3});
    CHECK_EQ(pq.commit(), 3);
    CHECK_EQ(offsets_of(pq.take(10)), (std::vector<int64_t>{3}));
    CHECK_EQ(pq.commit(), 5);
    CHECK(pq.take(1).empty());
    CHECK_EQ(pq.count(), 0u);
    CHECK_EQ(pq.bytes(), 0);
  }

  TEST_CASE("dropped, cleared and locked") {
    process_queue pq;
    pq.add(batch(0, 3));
    pq.take(1);
    pq.set_dropped(true);
    CHECK(pq.dropped());
    pq.clear();
    CHECK_EQ(pq.count(), 0u);
    CHECK(pq.taken().empty());
    CHECK_FALSE(pq.commit_offset());
    constexpr int64_t s = 1000 * 1000 * 1000;
    CHECK_FALSE(pq.locked());
    pq.set_locked(true, 100 * s);
    CHECK(pq.locked());
    CHECK_FALSE(pq.lock_expired(130 * s));
    CHECK(pq.lock_expired(131 * s));
    pq.set_locked(true, 125 * s);
    CHECK_FALSE(pq.lock_expired(131 * s));
  }

  TEST_CASE("randomized: the commit offset never passes an unprocessed "
            "offset") {
    std::mt19937 rng{test::test_seed()};
    for (int round = 0; round < 50; ++round) {
      process_queue pq;
      std::set<int64_t> open; // added, not consumed (waiting or taken)
      int64_t next = 0;
      int64_t max_added = -1;
      int64_t last_commit = 0;
      bool orderly = round % 2 == 1;
      for (int step = 0; step < 400; ++step) {
        auto action = rng() % 4;
        if (action == 0) {
          // A pulled batch, maybe after a gap (filtered offsets).
          next += rng() % 3;
          auto n = 1 + rng() % 8;
          auto b = batch(next, n);
          for (auto& m : b)
            open.insert(m.queue_offset);
          next += n;
          max_added = next - 1;
          pq.add(std::move(b));
        } else if (!orderly) {
          // Some waiting ones consumed, in any order.
          std::vector<int64_t> done;
          for (auto& [offset, m] : pq.waiting())
            if (rng() % 3 == 0)
              done.push_back(offset);
          std::shuffle(done.begin(), done.end(), rng);
          pq.remove(done);
          for (auto o : done)
            open.erase(o);
        } else if (action == 1) {
          if (pq.taken().empty())
            pq.take(1 + rng() % 4);
        } else if (action == 2) {
          std::vector<int64_t> again;
          for (auto& [offset, m] : pq.taken())
            if (rng() % 2 == 0)
              again.push_back(offset);
          if (rng() % 2 == 0) {
            pq.consume_again(again);
          } else {
            for (auto& [offset, m] : pq.taken())
              open.erase(offset);
            pq.commit();
          }
        } else {
          pq.rollback();
        }
        auto commit = pq.commit_offset();
        REQUIRE_EQ(pq.count(), open.size());
        if (max_added < 0) {
          CHECK_FALSE(commit);
          continue;
        }
        REQUIRE(commit);
        if (open.empty())
          CHECK_EQ(*commit, max_added + 1);
        else
          CHECK_EQ(*commit, *open.begin());
        // Never past an unprocessed message, and never backwards.
        CHECK((open.empty() || *commit <= *open.begin()));
        CHECK_GE(*commit, last_commit);
        last_commit = *commit;
      }
    }
  }

  TEST_CASE("concurrent: tracked offsets count like held messages") {
    process_queue pq;
    auto b = batch(10, 5, 20);
    CHECK_EQ(pq.track(b), 5u);
    CHECK(pq.waiting().empty()); // no copy of the messages
    CHECK_EQ(pq.count(), 5u);
    CHECK_EQ(pq.bytes(), 100);
    CHECK(pq.holds(12));
    CHECK_FALSE(pq.holds(15));
    CHECK_EQ(pq.track(batch(13, 3, 20)), 1u); // 13 and 14 held already
    CHECK_EQ(pq.max_span(), 5);
    CHECK_EQ(pq.remove({12, 15}), 10);
    CHECK_FALSE(pq.holds(12));
    CHECK_EQ(pq.max_span(), 4);
    CHECK_EQ(pq.remove({10, 11}), 13);
    CHECK_EQ(pq.count(), 2u);
    CHECK_EQ(pq.bytes(), 40);
    CHECK_EQ(pq.max_span(), 1);
    // An older batch (out of order) is slotted in before them.
    CHECK_EQ(pq.track(batch(11, 1, 20)), 1u);
    CHECK_EQ(pq.commit_offset(), 11);
    CHECK_EQ(pq.remove({11, 13, 14}), 16);
    CHECK_EQ(pq.count(), 0u);
    CHECK_EQ(pq.bytes(), 0);
    pq.track(batch(16, 2));
    pq.clear();
    CHECK_FALSE(pq.commit_offset());
    CHECK_EQ(pq.count(), 0u);
  }

  TEST_CASE("randomized: tracked offsets, the commit offset never passes an "
            "unconsumed one") {
    std::mt19937 rng{test::test_seed()};
    for (int round = 0; round < 50; ++round) {
      process_queue pq;
      std::set<int64_t> open;
      int64_t next = 0;
      int64_t max_added = -1;
      int64_t last_commit = 0;
      for (int step = 0; step < 400; ++step) {
        if (rng() % 3 == 0) {
          next += rng() % 3;
          auto n = 1 + rng() % 8;
          auto b = batch(next, n);
          for (auto& m : b)
            open.insert(m.queue_offset);
          next += n;
          max_added = next - 1;
          pq.track(b);
        } else {
          std::vector<int64_t> done;
          for (auto o : open)
            if (rng() % 3 == 0)
              done.push_back(o);
          std::shuffle(done.begin(), done.end(), rng);
          pq.remove(done);
          for (auto o : done)
            open.erase(o);
        }
        REQUIRE_EQ(pq.count(), open.size());
        REQUIRE_EQ(pq.bytes(), static_cast<int64_t>(open.size()) * 10);
        auto span = open.empty() ? 0 : *open.rbegin() - *open.begin();
        REQUIRE_EQ(pq.max_span(), span);
        // Held is exactly open, gaps and offsets past the end included.
        auto probe
          = static_cast<int64_t>(rng() % static_cast<uint64_t>(next + 3));
        REQUIRE_EQ(pq.holds(probe), open.count(probe) > 0);
        auto commit = pq.commit_offset();
        if (max_added < 0) {
          CHECK_FALSE(commit);
          continue;
        }
        REQUIRE(commit);
        CHECK_EQ(*commit, open.empty() ? max_added + 1 : *open.begin());
        CHECK_GE(*commit, last_commit);
        last_commit = *commit;
      }
    }
  }
}
