// The allocation strategies (RocketMQ AllocateMessageQueueAveragely,
// AveragelyByCircle, ConsistentHash): every queue has one owner, the splits
// are RocketMQ's, and sorting the inputs makes them order-independent.
#include "runtime/client/allocate_strategy.hpp"

#include <algorithm>
#include <map>
#include <random>

#include <doctest/doctest.h>

#include "tests/support/test_seed.hpp"

using namespace rmq;

namespace {

/// `n` queues of topic T, spread round-robin over brokers b0, b1, sorted.
std::vector<message_queue> queues(size_t n) {
  std::vector<message_queue> result;
  for (size_t i = 0; i < n; ++i)
    result.push_back(message_queue{"T", "b" + std::to_string(i % 2),
                                   static_cast<int32_t>(i / 2)});
  std::sort(result.begin(), result.end());
  return result;
}

std::vector<std::string> members(size_t n) {
  std::vector<std::string> result;
  for (size_t i = 0; i < n; ++i)
    result.push_back("10.0.0." + std::to_string(i + 1) + "@"
                     + std::to_string(i));
  std::sort(result.begin(), result.end());
  return result;
}

/// Every member's share, in member order.
std::vector<std::vector<message_queue>>
split(const allocate_strategy& s, const std::vector<message_queue>& qs,
      const std::vector<std::string>& ms) {
  std::vector<std::vector<message_queue>> result;
  for (auto& m : ms)
    result.push_back(s.allocate("G", m, qs, ms));
  return result;
}

/// The positions of `xs` in `all`.
std::vector<size_t> positions(const std::vector<message_queue>& all,
                              const std::vector<message_queue>& xs) {
  std::vector<size_t> result;
  for (auto& x : xs)
    result.push_back(
      static_cast<size_t>(std::find(all.begin(), all.end(), x) - all.begin()));
  return result;
}

/// Queue -> owner over every member's share.
std::map<message_queue, std::string>
owners(const allocate_strategy& s, const std::vector<message_queue>& qs,
       const std::vector<std::string>& ms) {
  std::map<message_queue, std::string> result;
  for (auto& m : ms)
    for (auto& q : s.allocate("G", m, qs, ms))
      result[q] = m;
  return result;
}

std::vector<allocate_strategy> all_strategies() {
  return {*find_allocate_strategy("AVG"),
          *find_allocate_strategy("AVG_BY_CIRCLE"),
          *find_allocate_strategy("CONSISTENT_HASH")};
}

} // namespace

TEST_SUITE("runtime.allocate_strategy") {
  TEST_CASE("strategies are found by RocketMQ's names") {
    for (auto name : {"AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH"}) {
      auto s = find_allocate_strategy(name);
      REQUIRE(s);
      CHECK_EQ(s->name, name);
    }
    CHECK_FALSE(find_allocate_strategy("avg"));
    CHECK_FALSE(find_allocate_strategy("MACHINE_ROOM"));
    CHECK_EQ(consistent_hash_strategy(3).name, "CONSISTENT_HASH");
  }

  TEST_CASE("every queue is owned exactly once, 1..20 queues x 1..8 members") {
    for (auto& s : all_strategies()) {
      CAPTURE(s.name);
      for (size_t nq = 1; nq <= 20; ++nq) {
        for (size_t nm = 1; nm <= 8; ++nm) {
          CAPTURE(nq);
          CAPTURE(nm);
          auto qs = queues(nq);
          auto ms = members(nm);
          std::map<message_queue, int> owners;
          size_t smallest = nq;
          size_t largest = 0;
          for (auto& share : split(s, qs, ms)) {
            smallest = std::min(smallest, share.size());
            largest = std::max(largest, share.size());
            for (auto& q : share)
              ++owners[q];
            // Shares keep the queues' order.
            CHECK(std::is_sorted(share.begin(), share.end()));
          }
          CHECK_EQ(owners.size(), nq);
          for (auto& [q, n] : owners)
            CHECK_EQ(n, 1);
          if (s.name != "CONSISTENT_HASH")
            CHECK_LE(largest - smallest, 1u);
        }
      }
    }
  }

  TEST_CASE("averagely gives RocketMQ's contiguous blocks") {
    auto s = *find_allocate_strategy("AVG");
    auto qs = queues(10);
    auto ms = members(3);
    auto shares = split(s, qs, ms);
    CHECK_EQ(positions(qs, shares[0]), (std::vector<size_t>{0, 1, 2, 3}));
    CHECK_EQ(positions(qs, shares[1]), (std::vector<size_t>{4, 5, 6}));
    CHECK_EQ(positions(qs, shares[2]), (std::vector<size_t>{7, 8, 9}));
    // Fewer queues than members: the first ones get one each.
    shares = split(s, queues(2), members(3));
    CHECK_EQ(shares[0].size(), 1u);
    CHECK_EQ(shares[1].size(), 1u);
    CHECK(shares[2].empty());
    // 8 queues, 2 members: 4/4.
    qs = queues(8);
    shares = split(s, qs, members(2));
    CHECK_EQ(positions(qs, shares[0]), (std::vector<size_t>{0, 1, 2, 3}));
    CHECK_EQ(positions(qs, shares[1]), (std::vector<size_t>{4, 5, 6, 7}));
  }

  TEST_CASE("averagely by circle deals queues round-robin") {
    auto s = *find_allocate_strategy("AVG_BY_CIRCLE");
    auto qs = queues(10);
    auto shares = split(s, qs, members(3));
    CHECK_EQ(positions(qs, shares[0]), (std::vector<size_t>{0, 3, 6, 9}));
    CHECK_EQ(positions(qs, shares[1]), (std::vector<size_t>{1, 4, 7}));
    CHECK_EQ(positions(qs, shares[2]), (std::vector<size_t>{2, 5, 8}));
  }

  TEST_CASE("no share for a stranger, an empty id or empty inputs") {
    for (auto& s : all_strategies()) {
      CAPTURE(s.name);
      CHECK(s.allocate("G", "stranger", queues(4), members(2)).empty());
      CHECK(s.allocate("G", "", queues(4), members(2)).empty());
      CHECK(s.allocate("G", members(1)[0], {}, members(1)).empty());
      CHECK(s.allocate("G", "x", queues(4), {}).empty());
    }
  }

  TEST_CASE("sorting the inputs makes the split order-independent") {
    std::mt19937 rng{test::test_seed()};
    for (auto& s : all_strategies()) {
      CAPTURE(s.name);
      auto qs = queues(13);
      auto ms = members(5);
      auto expected = split(s, qs, ms);
      for (int round = 0; round < 20; ++round) {
        auto qs2 = qs;
        auto ms2 = ms;
        std::shuffle(qs2.begin(), qs2.end(), rng);
        std::shuffle(ms2.begin(), ms2.end(), rng);
        // Each member receives the lists in its own order and sorts them,
        // as the rebalance does.
        std::sort(qs2.begin(), qs2.end());
        std::sort(ms2.begin(), ms2.end());
        for (size_t i = 0; i < ms.size(); ++i)
          CHECK_EQ(s.allocate("G", ms[i], qs2, ms2), expected[i]);
      }
    }
  }

  TEST_CASE("unsorted member lists make two owners of one block") {
    // Why the caller sorts: with the members in two orders, two members
    // both claim the first block.
    auto qs = queues(8);
    auto ms = members(2);
    std::vector<std::string> reversed{ms[1], ms[0]};
    auto a = allocate_averagely("G", ms[0], qs, ms);
    auto b = allocate_averagely("G", ms[1], qs, reversed);
    CHECK_EQ(a, b);
  }

  TEST_CASE("the ring hash is the first four bytes of MD5") {
    // md5("") = d41d8cd9..., md5("abc") = 90015098...
    CHECK_EQ(consistent_hash_of(""), int64_t{0xd41d8cd9});
    CHECK_EQ(consistent_hash_of("abc"), int64_t{0x90015098});
    CHECK_EQ(queue_hash_key(message_queue{"T", "b", 3}),
             "MessageQueue [topic=T, brokerName=b, queueId=3]");
  }

  TEST_CASE("consistent hash gives the split of RocketMQ's ring") {
    // Worked out with Python's hashlib over RocketMQ's keys (member-i
    // virtual nodes, MessageQueue.toString() for queues).
    auto qs = queues(8);
    auto ms = members(3);
    auto shares = split(*find_allocate_strategy("CONSISTENT_HASH"), qs, ms);
    CHECK_EQ(positions(qs, shares[0]), (std::vector<size_t>{6}));
    CHECK_EQ(positions(qs, shares[1]), (std::vector<size_t>{0, 4}));
    CHECK_EQ(positions(qs, shares[2]), (std::vector<size_t>{1, 2, 3, 5, 7}));
  }

  TEST_CASE("consistent hash moves few queues when a member joins") {
    auto qs = queues(64);
    auto ms = members(4);
    auto joined = ms;
    joined.push_back("10.0.0.99@new");
    std::sort(joined.begin(), joined.end());
    auto hash = *find_allocate_strategy("CONSISTENT_HASH");
    auto before = owners(hash, qs, ms);
    auto after = owners(hash, qs, joined);
    REQUIRE_EQ(before.size(), qs.size());
    REQUIRE_EQ(after.size(), qs.size());
    size_t moved = 0;
    for (auto& [q, owner] : after) {
      if (owner != before[q]) {
        ++moved;
        // A queue only ever moves to the newcomer.
        CHECK_EQ(owner, "10.0.0.99@new");
      }
    }
    CHECK_GT(moved, 0u);
    CHECK_LT(moved, qs.size() / 2);
    // The average strategy, by contrast, moves most queues.
    auto avg = *find_allocate_strategy("AVG");
    auto avg_before = owners(avg, qs, ms);
    size_t moved_avg = 0;
    for (auto& [q, owner] : owners(avg, qs, joined))
      if (owner != avg_before[q])
        ++moved_avg;
    CHECK_GT(moved_avg, moved);
  }

  TEST_CASE("more virtual nodes, evener shares") {
    auto qs = queues(200);
    auto ms = members(4);
    auto spread = [&](int vnodes) {
      size_t smallest = qs.size();
      size_t largest = 0;
      for (auto& m : ms) {
        auto n = allocate_consistent_hash("G", m, qs, ms, vnodes).size();
        smallest = std::min(smallest, n);
        largest = std::max(largest, n);
      }
      return largest - smallest;
    };
    CHECK_LE(spread(100), spread(1));
    CHECK(allocate_consistent_hash("G", ms[0], qs, ms, 0).empty());
  }
}
