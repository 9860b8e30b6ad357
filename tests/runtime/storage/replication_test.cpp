// A slave's copy of its master's commit log, at the store level: chunks
// read from the master, appended at the slave's write offset, checked
// whole before a byte is written.
#include <string>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/storage/message_store.hpp"
#include "tests/runtime/storage/store_test_util.hpp"

using namespace rmq;
using namespace rmq::storage;
using rmq::test::make_message;

namespace {

// Copies the master's log to the slave, chunk by chunk, from where the
// slave is; answers the number of chunks.
int catch_up(message_store& master, message_store& slave, size_t chunk_bytes) {
  int chunks = 0;
  for (;;) {
    auto chunk = master.read_log(slave.write_offset(), chunk_bytes);
    REQUIRE_MESSAGE(chunk, describe(chunk.error()));
    if (chunk->empty())
      return chunks;
    REQUIRE_FALSE(slave.append_replica(slave.write_offset(), *chunk));
    REQUIRE_FALSE(slave.adopt_terms(master.epochs()));
    ++chunks;
  }
}

// The log's bytes [0, end) as the store reads them back.
std::string log_bytes(message_store& st) {
  std::string out;
  int64_t at = 0;
  while (at < st.write_offset()) {
    auto chunk = st.read_log(at, 1 << 20);
    REQUIRE(chunk);
    REQUIRE_FALSE(chunk->empty());
    out += *chunk;
    at += static_cast<int64_t>(chunk->size());
  }
  return out;
}

} // namespace

TEST_SUITE("runtime.storage_replication") {
  TEST_CASE("the slave's log is the master's, across segments, and its "
            "queues read the same") {
    test::temp_dir m_dir, s_dir;
    auto cfg = test::small_config(m_dir.path());
    cfg.segment_size = 4096; // blanks and rolls every few records
    auto master = test::open_store(cfg);
    cfg.dir = s_dir.path();
    cfg.slave = true;
    auto slave = test::open_store(cfg);
    for (int i = 0; i < 40; ++i)
      REQUIRE_FALSE(
        master
          ->put(make_message("T", i % 2, std::string(300, 'a' + i % 26)),
                1'700'000'000'000 + i, 0)
          .error);
    // Small chunks: many cut inside a segment, the blanks whole.
    CHECK_GT(catch_up(*master, *slave, 700), 10);
    CHECK_EQ(slave->write_offset(), master->write_offset());
    CHECK_EQ(log_bytes(*slave), log_bytes(*master));
    REQUIRE_FALSE(slave->dispatch(slave->write_offset()));
    REQUIRE_FALSE(master->dispatch(master->write_offset()));
    for (int q = 0; q < 2; ++q) {
      CHECK_EQ(test::read_all(*slave, "T", q), test::read_all(*master, "T", q));
      CHECK_EQ(slave->offsets("T", q), master->offsets("T", q));
    }
    // A slave's store takes no put: nothing but the master's log.
    auto refused = slave->put(make_message("T", 0, "mine"), 1, 0);
    CHECK_EQ(refused.error, errc::service_not_available);
    CHECK_NE(error_detail(refused.error).find("slave mode"), std::string::npos);
    CHECK_EQ(slave->write_offset(), master->write_offset());
    // Promoted, it goes on at the master's queue offsets.
    slave->set_slave(false);
    auto next = slave->put(make_message("T", 0, "after"), 1, 0);
    REQUIRE_FALSE(next.error);
    CHECK_EQ(next.queue_offset, 20);
  }

  TEST_CASE("a slave resumes from its own offset after a restart") {
    test::temp_dir m_dir, s_dir;
    auto cfg = test::small_config(m_dir.path());
    auto master = test::open_store(cfg);
    test::put_n(*master, 10);
    auto s_cfg = cfg;
    s_cfg.dir = s_dir.path();
    {
      auto slave = test::open_store(s_cfg);
      catch_up(*master, *slave, 1 << 20);
      REQUIRE(slave->flush(slave->write_offset()));
      REQUIRE_FALSE(slave->close());
    }
    test::put_n(*master, 5, 10);
    auto slave = test::open_store(s_cfg);
    auto from = slave->write_offset();
    CHECK_GT(from, 0);
    CHECK_EQ(catch_up(*master, *slave, 1 << 20), 1); // only what is new
    REQUIRE_FALSE(slave->dispatch(slave->write_offset()));
    CHECK_EQ(test::read_all(*slave).size(), 15u);
  }

  TEST_CASE("a gap, an overlap, a bad CRC and a stranger's chunk are "
            "refused and nothing is written") {
    test::temp_dir m_dir, s_dir, x_dir;
    auto cfg = test::small_config(m_dir.path());
    auto master = test::open_store(cfg);
    test::put_n(*master, 6);
    auto s_cfg = cfg;
    s_cfg.dir = s_dir.path();
    auto slave = test::open_store(s_cfg);
    auto first = master->read_log(0, 1);
    REQUIRE(first);
    auto one = static_cast<int64_t>(first->size()); // one record
    REQUIRE_FALSE(slave->append_replica(0, *first));
    // A gap: a chunk from further on.
    auto later = master->read_log(2 * one, 1);
    REQUIRE(later);
    auto err = slave->append_replica(2 * one, *later);
    CHECK(err == errc::invalid_parameter);
    CHECK_NE(describe(err).find("the log ends at"), std::string::npos);
    // An overlap: what the slave has already.
    CHECK(slave->append_replica(0, *first) == errc::invalid_parameter);
    // A body byte changed on the way: the CRC says so.
    auto next = master->read_log(one, 1 << 20);
    REQUIRE(next);
    // The body CRC covers the body ("m1"), not the header's other fields.
    auto bad = *next;
    auto body = bad.find("m1");
    REQUIRE_NE(body, std::string::npos);
    bad[body + 1] ^= 0x55;
    err = slave->append_replica(one, bad);
    CHECK(err == errc::corrupt_data);
    CHECK_EQ(slave->write_offset(), one);
    // A stranger's log: valid records that name other offsets.
    auto x_cfg = cfg;
    x_cfg.dir = x_dir.path();
    auto stranger = test::open_store(x_cfg);
    REQUIRE_FALSE(stranger->put(make_message("Other", 0, "zz"), 1, 0).error);
    REQUIRE_FALSE(stranger->put(make_message("Other", 0, "zz"), 1, 0).error);
    auto theirs = stranger->read_log(0, 1 << 20);
    REQUIRE(theirs);
    // Its first record names offset 0, not its place here.
    err = slave->append_replica(one, *theirs);
    CHECK(err == errc::corrupt_data);
    CHECK_NE(describe(err).find("not from this log's master"),
             std::string::npos);
    CHECK_EQ(slave->write_offset(), one);
    // The right chunk still goes in.
    REQUIRE_FALSE(slave->append_replica(one, *next));
    CHECK_EQ(slave->write_offset(), master->write_offset());
  }

  TEST_CASE("a slave ahead of its new master is cut where their histories "
            "part, then follows it") {
    test::temp_dir a_dir, b_dir, s_dir;
    auto cfg = test::small_config(a_dir.path());
    cfg.segment_size = 4096;
    auto old_master = test::open_store(cfg);
    auto b_cfg = cfg;
    b_cfg.dir = b_dir.path();
    auto new_master = test::open_store(b_cfg);
    auto s_cfg = cfg;
    s_cfg.dir = s_dir.path();
    auto slave = test::open_store(s_cfg);
    auto put = [](message_store& st, const std::string& body) {
      REQUIRE_FALSE(
        st.put(make_message("T", 0, std::string(200, 'x') + body), 1, 0).error);
    };
    for (int i = 0; i < 30; ++i)
      put(*old_master, "old" + std::to_string(i));
    // The new master had copied 20 of them when it was promoted; the slave
    // got all 30 from the old master.
    // One record a chunk (or a segment's blank).
    for (int copied = 0; copied < 20;) {
      auto chunk = old_master->read_log(new_master->write_offset(), 1);
      REQUIRE(chunk);
      record_view rec;
      if (decode_record(chunk->data(), chunk->size(), rec) == decode_status::ok)
        ++copied;
      REQUIRE_FALSE(
        new_master->append_replica(new_master->write_offset(), *chunk));
    }
    auto parted = new_master->write_offset();
    catch_up(*old_master, *slave, 1 << 20);
    for (int i = 0; i < 5; ++i)
      put(*new_master, "new" + std::to_string(i));
    // Its next chunk does not follow the slave's log: refused.
    CHECK(slave->append_replica(parted, *new_master->read_log(parted, 1 << 20))
          == errc::invalid_parameter);
    // Cut at the parting point, it follows the new master.
    REQUIRE_FALSE(slave->truncate_log(parted));
    CHECK_EQ(slave->write_offset(), parted);
    catch_up(*new_master, *slave, 1 << 20);
    CHECK_EQ(log_bytes(*slave), log_bytes(*new_master));
    REQUIRE_FALSE(slave->dispatch(slave->write_offset()));
    REQUIRE_FALSE(new_master->dispatch(new_master->write_offset()));
    CHECK_EQ(test::read_all(*slave), test::read_all(*new_master));
    CHECK_EQ(slave->offsets("T", 0), queue_offsets{0, 25});
    // A cut where no record begins is refused.
    CHECK(slave->truncate_log(parted + 1) == errc::invalid_parameter);
    // A crash after the cut: recovery finds the same store.
    auto want = test::read_all(*new_master);
    slave.reset(); // not closed: as a crash leaves it
    auto again = test::open_store(s_cfg);
    CHECK_EQ(test::read_all(*again), want);
    CHECK_EQ(again->write_offset(), new_master->write_offset());
  }

  TEST_CASE("terms decide: an old master returning as a slave is cut where "
            "the new master's term began; nothing else is ever cut") {
    test::temp_dir o_dir, n_dir;
    auto cfg = test::small_config(o_dir.path());
    auto old_master = test::open_store(cfg);
    auto n_cfg = cfg;
    n_cfg.dir = n_dir.path();
    n_cfg.slave = true;
    auto slave = test::open_store(n_cfg);
    auto put = [](message_store& st, const std::string& body) {
      REQUIRE_FALSE(st.put(make_message("T", 0, body), 1, 0).error);
    };
    REQUIRE_EQ(*old_master->begin_term(0), 1);
    for (int i = 0; i < 10; ++i)
      put(*old_master, "a" + std::to_string(i));
    // An empty slave shares everything there is.
    CHECK_EQ(
      *slave->reconcile(old_master->epochs(), old_master->write_offset()), 0);
    catch_up(*old_master, *slave, 1 << 20);
    CHECK_EQ(slave->epochs(), old_master->epochs());
    // The old master goes on alone (the slave's copy stops here) ...
    auto copied = slave->write_offset();
    for (int i = 0; i < 5; ++i)
      put(*old_master, "lost" + std::to_string(i));
    // ... a slave ahead in the same term is refused: nothing cut.
    auto err = old_master->reconcile(slave->epochs(), slave->write_offset());
    REQUIRE_FALSE(err);
    CHECK(err.error() == errc::invalid_parameter);
    CHECK_NE(error_detail(err.error()).find("same term"), std::string::npos);
    CHECK_GT(old_master->write_offset(), copied);
    // The slave is promoted: term 2 from its end, and it takes sends.
    slave->set_slave(false);
    REQUIRE_EQ(*slave->begin_term(0), 2);
    for (int i = 0; i < 3; ++i)
      put(*slave, "b" + std::to_string(i));
    // The old master returns as its slave: its 5 lone records are of term
    // 1 past where term 2 began, never acknowledged by the new history.
    old_master->set_slave(true);
    auto from = old_master->reconcile(slave->epochs(), slave->write_offset());
    REQUIRE(from);
    CHECK_EQ(*from, copied);
    CHECK_EQ(old_master->write_offset(), copied);
    catch_up(*slave, *old_master, 1 << 20);
    CHECK_EQ(log_bytes(*old_master), log_bytes(*slave));
    CHECK_EQ(old_master->epochs(), slave->epochs());
    REQUIRE_FALSE(old_master->dispatch(old_master->write_offset()));
    REQUIRE_FALSE(slave->dispatch(slave->write_offset()));
    CHECK_EQ(test::read_all(*old_master), test::read_all(*slave));
    // Compared again (a reconnect): nothing to cut.
    CHECK_EQ(*old_master->reconcile(slave->epochs(), slave->write_offset()),
             slave->write_offset());
    // A stranger's terms: no shared history, refused, nothing cut.
    std::vector<epoch_entry> stranger{{7, 0}};
    auto before = old_master->write_offset();
    auto refused = old_master->reconcile(stranger, 1 << 20);
    REQUIRE_FALSE(refused);
    CHECK_NE(error_detail(refused.error()).find("no term"), std::string::npos);
    CHECK_EQ(old_master->write_offset(), before);
    // The terms survive a restart.
    auto terms = old_master->epochs();
    REQUIRE_FALSE(old_master->close());
    old_master.reset();
    auto again = test::open_store(cfg);
    CHECK_EQ(again->epochs(), terms);
  }

  TEST_CASE("an old master that restarted as master before it heard of the "
            "promotion is cut to where the terms part") {
    test::temp_dir o_dir, n_dir;
    auto cfg = test::small_config(o_dir.path());
    auto old_master = test::open_store(cfg);
    auto n_cfg = cfg;
    n_cfg.dir = n_dir.path();
    auto slave = test::open_store(n_cfg);
    auto put = [](message_store& st, const std::string& body) {
      REQUIRE_FALSE(st.put(make_message("T", 0, body), 1, 0).error);
    };
    constexpr int64_t t0 = 1'796'000'000'000; // a wall-clock time, ms
    REQUIRE(old_master->begin_term(t0));
    for (int i = 0; i < 4; ++i)
      put(*old_master, "a" + std::to_string(i));
    catch_up(*old_master, *slave, 1 << 20);
    auto parted = slave->write_offset();
    // Both begin a term at the same offset, a minute apart: the promoted
    // slave, and the old master restarted by its flags. Each takes sends.
    auto s_epoch = slave->begin_term(t0 + 60'000);
    auto o_epoch = old_master->begin_term(t0 + 120'000);
    REQUIRE(s_epoch);
    REQUIRE(o_epoch);
    CHECK_NE(*s_epoch, *o_epoch);
    put(*slave, "new");
    put(*old_master, "split");
    put(*old_master, "split2");
    // Demoted, the old master keeps nothing of its own term.
    auto from = old_master->reconcile(slave->epochs(), slave->write_offset());
    REQUIRE(from);
    CHECK_EQ(*from, parted);
    catch_up(*slave, *old_master, 1 << 20);
    CHECK_EQ(log_bytes(*old_master), log_bytes(*slave));
  }

  TEST_CASE("the master reads only what is there") {
    test::temp_dir dir;
    auto master = test::open_store(test::small_config(dir.path()));
    auto empty = master->read_log(0, 1024);
    REQUIRE(empty);
    CHECK(empty->empty());
    test::put_n(*master, 3);
    auto past = master->read_log(master->write_offset() + 1, 1024);
    CHECK_FALSE(past);
    // Not a record start.
    auto inside = master->read_log(3, 1024);
    CHECK_FALSE(inside);
  }
}
