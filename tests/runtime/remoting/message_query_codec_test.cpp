// Message lookups over remoting as the Java admin sends them
// (ViewMessageRequestHeader, QueryMessageRequestHeader) and their answers.
#include "runtime/remoting/message_query_codec.hpp"

#include <string>

#include <doctest/doctest.h>

#include "runtime/remoting/remoting_codes.hpp"
#include "tests/runtime/remoting/json_command.hpp"

using namespace rmq;
using namespace rmq::remoting;
using rmq::test::decoded;

TEST_SUITE("runtime.remoting_message_query") {
  TEST_CASE("VIEW_MESSAGE_BY_ID") {
    auto cmd = decoded(
      R"({"code":33,"language":"JAVA","opaque":5,"flag":0,"version":401,)"
      R"("extFields":{"offset":"8888"}})");
    view_message_request req;
    std::string err;
    REQUIRE_MESSAGE(decode_view_message(cmd, req, err), err);
    CHECK_EQ(req.commit_log_offset, 8888);
    auto res = view_message_response(cmd, "the-record");
    CHECK_EQ(res.code, response_code::success);
    CHECK_EQ(res.opaque, 5);
    CHECK_EQ(res.body, "the-record");
    cmd.ext_fields.clear();
    CHECK_FALSE(decode_view_message(cmd, req, err));
    CHECK_EQ(err, "the custom field <offset> is null");
  }

  TEST_CASE("QUERY_MESSAGE, found and not") {
    auto cmd = decoded(
      R"({"code":12,"language":"JAVA","opaque":6,"flag":0,"version":401,)"
      R"("extFields":{"topic":"TopicTest","key":"order-1","maxNum":"32",)"
      R"("beginTimestamp":"0","endTimestamp":"9223372036854775807"}})");
    query_message_request req;
    std::string err;
    REQUIRE_MESSAGE(decode_query_message(cmd, req, err), err);
    CHECK_EQ(req.topic, "TopicTest");
    CHECK_EQ(req.key, "order-1");
    CHECK_EQ(req.max_num, 32);
    CHECK_EQ(req.begin_timestamp, 0);
    CHECK_EQ(req.end_timestamp, INT64_MAX);
    query_message_result found{"rec1rec2", {100, 260}};
    auto res = query_message_response(cmd, found);
    CHECK_EQ(res.code, response_code::success);
    CHECK_EQ(res.body, "rec1rec2");
    CHECK_EQ(*res.field("indexLastUpdatePhyoffset"), "260");
    res = query_message_response(cmd, {});
    CHECK_EQ(res.code, response_code::query_not_found);
    CHECK_EQ(res.remark, std::optional<std::string>{
                           "can not find message, maybe time range not "
                           "correct"});
    cmd.ext_fields.erase("key");
    CHECK_FALSE(decode_query_message(cmd, req, err));
    CHECK_EQ(err, "the custom field <key> is null");
  }
}
