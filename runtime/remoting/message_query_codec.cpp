#include "runtime/remoting/message_query_codec.hpp"

#include "runtime/remoting/client_request_headers.hpp"
#include "runtime/remoting/remoting_codes.hpp"

namespace rmq::remoting {

bool decode_view_message(const remoting_command& cmd, view_message_request& out,
                         std::string& err) {
  header_reader r{cmd};
  out.commit_log_offset = r.int64("offset");
  return r.done(err);
}

remoting_command view_message_response(const remoting_command& req,
                                       const std::string& record) {
  auto res = make_response(req, response_code::success);
  res.body = record;
  return res;
}

bool decode_query_message(const remoting_command& cmd,
                          query_message_request& out, std::string& err) {
  header_reader r{cmd};
  out.topic = r.text("topic");
  out.key = r.text("key");
  out.max_num = r.int32("maxNum");
  out.begin_timestamp = r.int64("beginTimestamp");
  out.end_timestamp = r.int64("endTimestamp");
  return r.done(err);
}

remoting_command query_message_response(const remoting_command& req,
                                        const query_message_result& res) {
  if (res.phys_offsets.empty())
    return make_response(req, response_code::query_not_found,
                         "can not find message, maybe time range not "
                         "correct");
  auto out = make_response(req, response_code::success);
  out.ext_fields["indexLastUpdateTimestamp"] = "0";
  out.ext_fields["indexLastUpdatePhyoffset"]
    = std::to_string(res.phys_offsets.back());
  out.body = res.buffer;
  return out;
}

} // namespace rmq::remoting
