// Every store message type has its wire name, survives CAF's binary
// serialization, and renders the JSON operators expect.
#include "messages/store/store.hpp"

#include <typeinfo>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/binary_deserializer.hpp"
#include "caf/binary_serializer.hpp"
#include "caf/uniform_type_info_map.hpp"

#include "actors/broker/store/store_actors.hpp"
#include "messages/common/errors.hpp"
#include "tests/messages/message_fixture.hpp"

using namespace rmq;

namespace {

struct fixture : test::message_fixture {
  template <class T>
  void check(const T& x, const std::string& name, const std::string& json) {
    CHECK_EQ(name_of<T>(), name);
    CHECK(roundtrip(x) == x);
    CHECK_EQ(nlohmann::json(x).dump(), json);
  }
};

} // namespace

TEST_SUITE("messages.store") {
  TEST_CASE_FIXTURE(fixture, "store_message is registered, serializable and "
                             "dumpable") {
    store_message x{"T",
                    2,
                    1,
                    0,
                    1700000000000,
                    0x0A000001,
                    5000,
                    0,
                    0,
                    "body",
                    "TAGS\x01"
                    "a\x02"};
    check(x, "rmq.store_message",
          R"({"body_size":4,"born_host":"10.0.0.1:5000",)"
          R"("born_timestamp":1700000000000,"flag":1,)"
          R"("prepared_transaction_offset":0,"properties":{"TAGS":"a"},)"
          R"("queue_id":2,"reconsume_times":0,"sys_flag":0,"topic":"T"})");
  }

  TEST_CASE_FIXTURE(fixture, "put_result is registered, serializable and "
                             "dumpable") {
    put_result ok{caf::error{}, 3, 4096, 120, 1700000000001, false};
    check(ok, "rmq.put_result",
          R"({"duplicate":false,"error":null,"phys_offset":4096,)"
          R"("queue_offset":3,"size":120,"store_timestamp":1700000000001})");
    put_result bad;
    bad.error = make_error(errc::disk_full, "95%");
    CHECK(roundtrip(bad) == bad);
    CHECK_EQ(nlohmann::json(bad)["error"], "rmq::disk_full: 95%");
  }

  TEST_CASE("a put counts as stored without error or with a flush or slave "
            "timeout after the append") {
    put_result r;
    r.phys_offset = 4096;
    CHECK(is_stored(r));
    for (auto code : {errc::flush_disk_timeout, errc::flush_slave_timeout,
                      errc::slave_not_available}) {
      r.error = make_error(code);
      CHECK(is_stored(r));
    }
    r.error = make_error(errc::disk_full);
    CHECK_FALSE(is_stored(r));
    // A timeout without an appended record is no store.
    r.error = make_error(errc::flush_disk_timeout);
    r.phys_offset = -1;
    CHECK_FALSE(is_stored(r));
  }

  TEST_CASE_FIXTURE(fixture, "read requests and results are registered, "
                             "serializable and dumpable") {
    check(get_message_request{"T", 1, 5, 32, 1024, {7}},
          "rmq.get_message_request",
          R"({"max_bytes":1024,"max_count":32,"offset":5,"queue_id":1,)"
          R"("tag_codes":[7],"topic":"T"})");
    check(get_message_result{0, 6, 0, 9, "xy", {100}, {5}, true},
          "rmq.get_message_result",
          R"({"buffer_size":2,"max_offset":9,"min_offset":0,)"
          R"("next_begin_offset":6,"phys_offsets":[100],"queue_offsets":[5],)"
          R"("status":"found","suggest_pulling_from_slave":true})");
    check(get_offset_request{"T", 1}, "rmq.get_offset_request",
          R"({"queue_id":1,"topic":"T"})");
    check(queue_offsets{2, 9}, "rmq.queue_offsets",
          R"({"max_offset":9,"min_offset":2})");
    check(search_offset_request{"T", 1, 77}, "rmq.search_offset_request",
          R"({"queue_id":1,"timestamp":77,"topic":"T"})");
    check(query_message_request{"T", "k", 8, 1, 2}, "rmq.query_message_request",
          R"({"begin_timestamp":1,"end_timestamp":2,"key":"k","max_num":8,)"
          R"("topic":"T"})");
    check(query_message_result{"abc", {1, 2}}, "rmq.query_message_result",
          R"({"buffer_size":3,"phys_offsets":[1,2]})");
  }

  TEST_CASE_FIXTURE(fixture, "store actor handles are registered") {
    CHECK_EQ(name_of<commit_log_writer_actor>(), "rmq.commit_log_writer_actor");
    CHECK_EQ(name_of<flush_service_actor>(), "rmq.flush_service_actor");
    CHECK_EQ(name_of<queue_service_actor>(), "rmq.queue_service_actor");
    CHECK_EQ(name_of<warm_service_actor>(), "rmq.warm_service_actor");
    CHECK_EQ(name_of<std::vector<store_message>>(),
             "std::vector<rmq.store_message>");
  }

} // TEST_SUITE
