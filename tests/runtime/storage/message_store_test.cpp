#include "runtime/storage/message_store.hpp"

#include <fstream>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/common/wall_clock.hpp"
#include "runtime/message/message_id.hpp"
#include "tests/runtime/storage/store_test_util.hpp"

using namespace rmq;
using namespace rmq::storage;
using rmq::test::make_message;

TEST_SUITE("runtime.message_store") {
  TEST_CASE("appended messages read back in order with their offsets") {
    test::temp_dir dir;
    auto st = test::open_store(test::small_config(dir.path()));
    auto res = test::put_n(*st, 5);
    for (int i = 0; i < 5; ++i)
      CHECK_EQ(res[static_cast<size_t>(i)].queue_offset, i);
    CHECK_EQ(res[0].phys_offset, 0);
    CHECK_EQ(res[1].phys_offset, res[0].size);
    CHECK_EQ(test::read_all(*st),
             std::vector<std::string>{"m0", "m1", "m2", "m3", "m4"});
    CHECK_EQ(st->offsets("T", 0), queue_offsets{0, 5});
    CHECK_EQ(st->offsets("nope", 0), queue_offsets{0, 0});
  }

  TEST_CASE("a record that does not fit at a segment's end rolls over") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    cfg.segment_size = 4096;
    auto st = test::open_store(cfg);
    // Record size = 91 + topic 1 + body: bodies of 1000 B give 1092 B records.
    auto big = make_message("T", 0, std::string(1000, 'x'));
    auto size = static_cast<int64_t>(record_size(big));
    REQUIRE_EQ(size, 1092);
    for (int i = 0; i < 3; ++i)
      CHECK_EQ(st->put(big, 1, 0).phys_offset, i * size);
    // 3276 used, 820 left: a record of 812 B + 8 fits exactly ...
    auto exact = make_message("T", 0, std::string(812 - 92, 'y'));
    REQUIRE_EQ(record_size(exact), 812u);
    CHECK_EQ(st->put(exact, 1, 0).phys_offset, 3 * size);
    // ... leaving 8 bytes, so the next record goes to the next segment.
    auto next = st->put(make_message("T", 0, "z"), 1, 0);
    CHECK_EQ(next.phys_offset, 4096);
    CHECK_EQ(st->log().segment_count(), 2u);
    // The 8 bytes left hold the blank marker.
    mapped_file_ptr hold;
    size_t avail = 0;
    auto p = st->log().at(4088, hold, avail);
    REQUIRE(p != nullptr);
    record_view rec;
    CHECK(decode_record(p, avail, rec) == decode_status::blank);
    // One byte more than fits also rolls.
    auto over = make_message("T", 0, std::string(4096 - 92 - 8 - 93 + 1, 'o'));
    CHECK_EQ(st->put(over, 1, 0).phys_offset, 8192);
    REQUIRE(st->flush(st->write_offset()));
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    CHECK_EQ(test::read_all(*st).size(), 6u);
  }

  TEST_CASE("reads honour max count, max bytes and the tag filter") {
    test::temp_dir dir;
    auto st = test::open_store(test::small_config(dir.path()));
    for (int i = 0; i < 10; ++i)
      st->put(make_message("T", 1, "b" + std::to_string(i),
                           i % 2 == 0 ? "even" : "odd"),
              1, 0);
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    get_message_request req{"T", 1, 2, 3, 1 << 20, {}};
    auto res = *st->get_messages(req);
    CHECK_EQ(res.status, static_cast<uint8_t>(get_status::found));
    CHECK_EQ(test::bodies(res.buffer),
             std::vector<std::string>{"b2", "b3", "b4"});
    CHECK_EQ(res.queue_offsets, std::vector<int64_t>{2, 3, 4});
    CHECK_EQ(res.next_begin_offset, 5);
    CHECK_EQ(res.max_offset, 10);
    req.max_bytes = 1; // always at least one record
    CHECK_EQ(test::bodies(st->get_messages(req)->buffer).size(), 1u);
    req = {"T", 1, 0, 32, 1 << 20, {tags_code("odd")}};
    CHECK_EQ(test::bodies(st->get_messages(req)->buffer),
             (std::vector<std::string>{"b1", "b3", "b5", "b7", "b9"}));
    req = {"T", 1, 10, 32, 1 << 20, {}};
    CHECK_EQ(st->get_messages(req)->status,
             static_cast<uint8_t>(get_status::offset_overflow_one));
    req.offset = 11;
    CHECK_EQ(st->get_messages(req)->status,
             static_cast<uint8_t>(get_status::offset_overflow_badly));
    req.topic = "none";
    CHECK_EQ(st->get_messages(req)->status,
             static_cast<uint8_t>(get_status::no_message_in_queue));
  }

  TEST_CASE("records are found by phys offset, time, key and unique id") {
    test::temp_dir dir;
    auto st = test::open_store(test::small_config(dir.path()));
    std::vector<put_result> res;
    for (int i = 0; i < 10; ++i)
      res.push_back(st->put(make_message("T", 0, "b" + std::to_string(i), "",
                                         "key" + std::to_string(i % 3),
                                         "U" + std::to_string(i)),
                            1'700'000'000'000 + i * 1000, 0));
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    auto rec = st->lookup(res[4].phys_offset);
    REQUIRE(rec);
    CHECK_EQ(test::bodies(*rec), std::vector<std::string>{"b4"});
    CHECK_FALSE(st->lookup(res[4].phys_offset + 1));
    CHECK_FALSE(st->lookup(st->write_offset()));
    CHECK_EQ(st->search_offset({"T", 0, 1'700'000'004'000}), 4);
    CHECK_EQ(st->search_offset({"T", 0, 1'700'000'004'500}), 5);
    CHECK_EQ(st->search_offset({"T", 0, 0}), 0);
    CHECK_EQ(st->search_offset({"T", 0, INT64_MAX}), 10);
    auto by_key = st->query({"T", "key1", 32, 0, INT64_MAX});
    CHECK_EQ(test::bodies(by_key.buffer),
             (std::vector<std::string>{"b7", "b4", "b1"}));
    auto by_uniq = st->query({"T", "U5", 32, 0, INT64_MAX});
    CHECK_EQ(test::bodies(by_uniq.buffer), std::vector<std::string>{"b5"});
    CHECK(st->query({"Other", "U5", 32, 0, INT64_MAX}).phys_offsets.empty());
    auto id = encode_offset_msg_id(st->config().store_ip,
                                   st->config().store_port, res[2].phys_offset);
    CHECK_EQ(test::bodies(st->query({"T", id, 32, 0, INT64_MAX}).buffer),
             std::vector<std::string>{"b2"});
  }

  TEST_CASE("a full index file continues in a new one") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    cfg.index_entries = 10; // 9 usable entries per file
    auto st = test::open_store(cfg);
    for (int i = 0; i < 25; ++i)
      st->put(make_message("T", 0, "b", "", "same"), 1, 0);
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    CHECK_EQ(st->query({"T", "same", 100, 0, INT64_MAX}).phys_offsets.size(),
             25u);
  }

  TEST_CASE("a resent unique id within the window is not stored again") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    cfg.dedup_window = std::chrono::minutes{1};
    auto st = test::open_store(cfg);
    auto msg = make_message("T", 0, "once", "", "", "ID1");
    auto first = st->put(msg, 1, 0);
    auto again = st->put(msg, 2, 30'000);
    CHECK(again.duplicate);
    CHECK_EQ(again.phys_offset, first.phys_offset);
    CHECK_EQ(again.queue_offset, first.queue_offset);
    // After the window the same id is a new message.
    auto later = st->put(msg, 3, 61'000);
    CHECK_FALSE(later.duplicate);
    CHECK_EQ(later.queue_offset, 1);
  }

  TEST_CASE("the dedup table forgets its oldest ids past its size limit") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    cfg.dedup_window = std::chrono::minutes{1};
    cfg.dedup_max_entries = 2;
    auto st = test::open_store(cfg);
    auto m1 = make_message("T", 0, "one", "", "", "ID1");
    auto m2 = make_message("T", 0, "two", "", "", "ID2");
    auto m3 = make_message("T", 0, "three", "", "", "ID3");
    st->put(m1, 1, 0);
    st->put(m2, 2, 0);
    st->put(m3, 3, 0);
    CHECK_EQ(st->dedup_size(), 2u);
    // ID1 was pushed out: a resend is stored again (and pushes out ID2),
    // while ID3 is still known.
    CHECK_FALSE(st->put(m1, 4, 1).duplicate);
    CHECK(st->put(m3, 5, 1).duplicate);
    CHECK_EQ(st->dedup_size(), 2u);
    CHECK_FALSE(st->put(m2, 6, 1).duplicate);
  }

  TEST_CASE("oversize bodies and properties are clear errors") {
    test::temp_dir dir;
    auto st = test::open_store(test::small_config(dir.path()));
    auto res = st->put(make_message("T", 0, std::string(16 * 1024 + 1, 'x')), 1,
                       0);
    CHECK(res.error == errc::message_illegal);
    CHECK_EQ(error_detail(res.error),
             "body of 16385 bytes exceeds max_message_size 16384");
    auto msg = make_message("T", 0, "x");
    msg.properties = std::string(32768, 'p');
    CHECK(st->put(msg, 1, 0).error == errc::properties_size_exceeded);
    CHECK(st->put(make_message("", 0, "x"), 1, 0).error
          == errc::message_illegal);
    CHECK_EQ(st->write_offset(), 0);
    CHECK_FALSE(
      st->put(make_message("T", 0, std::string(16 * 1024, 'x')), 1, 0).error);
  }

  TEST_CASE("writes are refused when the disk is nearly full") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    cfg.disk_full_ratio = 0.0; // any use is too much
    auto st = test::open_store(cfg);
    st->refresh_disk_usage();
    auto res = st->put(make_message("T", 0, "x"), 1, 0);
    CHECK(res.error == errc::disk_full);
    CHECK_EQ(st->write_offset(), 0);
  }

  TEST_CASE("a segment that cannot be allocated is a disk_full error") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    auto st = test::open_store(cfg);
    cfg.faults->fail_allocate = 1;
    CHECK(st->put(make_message("T", 0, "x"), 1, 0).error == errc::disk_full);
    auto ok = st->put(make_message("T", 0, "x"), 1, 0); // space came back
    CHECK_FALSE(ok.error);
    CHECK_EQ(ok.queue_offset, 0);
  }

  TEST_CASE("flushed pages dropped from the mapping keep their bytes") {
    test::temp_dir dir;
    auto st = test::open_store(test::small_config(dir.path()));
    // Records over several pages; flushes end inside a page, so the next
    // flush starts in a page the last one could not drop.
    std::vector<std::string> bodies;
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < 10; ++i) {
        bodies.push_back(std::string(1000, static_cast<char>('a' + round))
                         + std::to_string(i));
        REQUIRE_FALSE(st->put(make_message("T", 0, bodies.back()), 1, 0).error);
      }
      REQUIRE(st->write_offset() % 4096 != 0);
      REQUIRE(st->flush(st->write_offset()));
    }
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    CHECK_EQ(test::read_all(*st), bodies);
    // The file holds what the mapping shows.
    mapped_file_ptr hold;
    size_t avail = 0;
    auto p = st->log().at(0, hold, avail);
    REQUIRE(p != nullptr);
    auto n = static_cast<size_t>(st->write_offset());
    std::ifstream in{hold->path(), std::ios::binary};
    std::string on_disk(n, '\0');
    in.read(on_disk.data(), static_cast<std::streamsize>(n));
    CHECK(on_disk == std::string(p, n));
  }

  TEST_CASE("a failed fdatasync is an error and stops all writes") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    auto st = test::open_store(cfg);
    st->put(make_message("T", 0, "x"), 1, 0);
    cfg.faults->fail_sync = 1;
    auto res = st->flush(st->write_offset());
    REQUIRE_FALSE(res);
    CHECK(res.error() == errc::io_error);
    CHECK(st->put(make_message("T", 0, "y"), 1, 0).error == errc::io_error);
    CHECK_FALSE(st->flush(st->write_offset()));
  }

  TEST_CASE("expired segments are deleted and queues skip them") {
    test::temp_dir dir;
    auto cfg = test::small_config(dir.path());
    cfg.segment_size = 4096;
    // Far longer than the test runs: "not old enough" must not depend on
    // how loaded the machine is.
    cfg.retention = std::chrono::minutes{10};
    auto st = test::open_store(cfg);
    for (int i = 0; i < 10; ++i)
      st->put(make_message("T", 0, std::string(1000, 'x')), 1, 0);
    REQUIRE(st->flush(st->write_offset()));
    REQUIRE_FALSE(st->dispatch(st->write_offset()));
    REQUIRE_EQ(st->log().segment_count(), 4u);
    CHECK_EQ(st->delete_expired(system_clock_ms()), 0u); // not old enough
    CHECK_EQ(st->delete_expired(system_clock_ms() + 20 * 60'000), 3u);
    CHECK_EQ(st->min_offset(), 3 * 4096);
    st->clean_consume_queues();
    auto offs = st->offsets("T", 0);
    CHECK_EQ(offs.min_offset, 9);
    CHECK_EQ(offs.max_offset, 10);
    get_message_request req{"T", 0, 0, 32, 1 << 20, {}};
    auto res = *st->get_messages(req);
    CHECK_EQ(res.status, static_cast<uint8_t>(get_status::offset_too_small));
    CHECK_EQ(res.next_begin_offset, 9);
  }

} // TEST_SUITE
