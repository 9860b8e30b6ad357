#include "actors/namesrv/namesrv_remoting.hpp"

#include <chrono>
#include <utility>

#include "caf/io/broker.hpp"

#include "messages/common/errors.hpp"
#include "runtime/remoting/error_response.hpp"
#include "runtime/remoting/remoting_codes.hpp"
#include "runtime/remoting/route_body.hpp"

namespace rmq {

namespace {

using namespace remoting;

// The NameServer's tables answer in microseconds; a request that takes
// this long means the node is stuck, and the client gets SYSTEM_ERROR.
constexpr auto answer_timeout = std::chrono::seconds{10};

void get_route(caf::io::broker* self, const namesrv_actor& ns,
               remoting_command req, remoting_reply reply) {
  auto topic = req.field("topic");
  if (!topic)
    return reply(missing_field(req, "topic"));
  self->request(ns, answer_timeout, get_route_info_request{*topic})
    .then(
      [req, reply](const topic_route_data& route) {
        auto res = make_response(req, response_code::success);
        res.body = to_json(route).dump();
        reply(std::move(res));
      },
      [req, reply, topic = *topic](const caf::error& err) {
        if (err == errc::topic_not_exist)
          reply(make_response(req, response_code::topic_not_exist,
                              "No topic route info in name server for the "
                              "topic: "
                                + topic));
        else
          reply(error_response(req, err));
      });
}

} // namespace

remoting_handler namesrv_remoting(namesrv_actor ns) {
  return
    [ns](caf::io::broker* self, remoting_command req, remoting_reply reply) {
      switch (req.code) {
        case request_code::get_routeinfo_by_topic:
          return get_route(self, ns, std::move(req), std::move(reply));
        default:
          return reply(not_supported(req));
      }
    };
}

} // namespace rmq
