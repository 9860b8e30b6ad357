// Our errors as remoting responses: RocketMQ's codes keep theirs, the
// rest are SYSTEM_ERROR, the remark says why.
#include "runtime/remoting/error_response.hpp"

#include <doctest/doctest.h>

#include "caf/sec.hpp"

#include "messages/common/errors.hpp"
#include "runtime/remoting/remoting_codes.hpp"

using namespace rmq;
using namespace rmq::remoting;

TEST_SUITE("runtime.remoting_errors") {
  TEST_CASE("error responses") {
    remoting_command req;
    req.code = request_code::send_message_v2;
    req.opaque = 77;
    req.serialization = serialize_type::rocketmq;
    auto res = error_response(req, make_error(errc::topic_not_exist, "T"));
    CHECK_EQ(res.code, response_code::topic_not_exist);
    CHECK_EQ(res.remark, std::optional<std::string>{"T"});
    CHECK_EQ(res.opaque, 77);
    CHECK(res.is_response());
    CHECK_EQ(res.serialization, serialize_type::rocketmq);
    res = error_response(req, make_error(errc::service_not_available));
    CHECK_EQ(res.code, response_code::service_not_available);
    CHECK(res.remark);
    res = error_response(req, make_error(errc::disk_full, "disk full"));
    CHECK_EQ(res.code, response_code::system_error);
    CHECK_EQ(res.remark, std::optional<std::string>{"disk full"});
    res = error_response(req, caf::make_error(caf::sec::request_timeout));
    CHECK_EQ(res.code, response_code::system_error);
    REQUIRE(res.remark);
    CHECK_NE(res.remark->find("request_timeout"), std::string::npos);
    res = not_supported(req);
    CHECK_EQ(res.code, response_code::request_code_not_supported);
    CHECK_EQ(res.remark,
             std::optional<std::string>{" request type 310 not supported"});
    res = missing_field(req, "b");
    CHECK_EQ(res.code, response_code::system_error);
    CHECK_EQ(res.remark,
             std::optional<std::string>{"the custom field <b> is null"});
  }
}
