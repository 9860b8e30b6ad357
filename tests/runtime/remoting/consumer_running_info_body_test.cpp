// ConsumerRunningInfo as a client writes it for GET_CONSUMER_RUNNING_INFO:
// fastjson's shape, MessageQueue objects as map keys.
#include "runtime/remoting/consumer_running_info_body.hpp"

#include <string>

#include <doctest/doctest.h>

#include "runtime/remoting/client_manage_codec.hpp"
#include "runtime/remoting/frame_codec.hpp"
#include "runtime/remoting/remoting_codes.hpp"

using namespace rmq;
using namespace rmq::remoting;

TEST_SUITE("runtime.remoting_consumer_running_info") {
  TEST_CASE("the body: sorted keys, queues keyed by MessageQueue objects") {
    running_info_report r;
    r.properties = {{"consumerGroup", "CG"}, {"PROP_CONSUMEORDERLY", "false"}};
    r.subscriptions.push_back({"T", "*", "TAG", {}, {}, 5});
    running_queue_info q;
    q.topic = "T";
    q.broker_name = "b";
    q.queue_id = 1;
    q.commit_offset = 10;
    q.cached_min_offset = 10;
    q.cached_max_offset = 12;
    q.cached_count = 3;
    r.queues.push_back(q);
    CHECK_EQ(consumer_running_info_body(r),
             R"({"mqTable":{{"brokerName":"b","queueId":1,"topic":"T"}:)"
             R"({"cachedMsgCount":3,"cachedMsgMaxOffset":12,)"
             R"("cachedMsgMinOffset":10,"cachedMsgSizeInMiB":0,)"
             R"("commitOffset":10,"droped":false,"locked":false,)"
             R"("transactionMsgCount":0,"transactionMsgMaxOffset":0,)"
             R"("transactionMsgMinOffset":0,"tryUnlockTimes":0}},)"
             R"("properties":{"PROP_CONSUMEORDERLY":"false",)"
             R"("consumerGroup":"CG"},"statusTable":{},)"
             R"("subscriptionSet":[{"classFilterMode":false,"codeSet":[],)"
             R"("expressionType":"TAG","subString":"*","subVersion":5,)"
             R"("tagsSet":[],"topic":"T"}]})");
    r.jstack = "main";
    CHECK_EQ(consumer_running_info_body(r).rfind(R"({"jstack":"main",)", 0),
             0u);
  }

  TEST_CASE("the request the broker sends a client, and its answer") {
    auto req = consumer_running_info_request(
      get_consumer_running_info_request{"CG", "10.0.0.1@7", false});
    CHECK_EQ(req.code, request_code::get_consumer_running_info);
    CHECK_FALSE(req.is_oneway());
    get_consumer_running_info_request back;
    std::string err;
    REQUIRE_MESSAGE(decode_consumer_running_info(req, back, err), err);
    CHECK_EQ(back,
             get_consumer_running_info_request{"CG", "10.0.0.1@7", false});
    req.opaque = 9;
    auto res = consumer_running_info_response(req, consumer_running_info{"{}"});
    CHECK(res.is_response());
    CHECK_EQ(res.opaque, 9);
    CHECK_EQ(res.code, response_code::success);
    CHECK_EQ(res.body, "{}");
    // A header without the client id is refused.
    req.ext_fields.erase("clientId");
    CHECK_FALSE(decode_consumer_running_info(req, back, err));
    CHECK_NE(err.find("clientId"), std::string::npos);
  }
}
