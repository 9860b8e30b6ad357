#include "runtime/remoting/error_response.hpp"

#include "messages/common/errors.hpp"
#include "runtime/remoting/remoting_codes.hpp"

namespace rmq::remoting {

remoting_command error_response(const remoting_command& request,
                                const caf::error& err) {
  int32_t code = response_code::system_error;
  if (err.category() == errc_category && err.code() < 100)
    code = err.code();
  auto detail = error_detail(err);
  return make_response(request, code, detail.empty() ? describe(err) : detail);
}

remoting_command not_supported(const remoting_command& request) {
  return make_response(request, response_code::request_code_not_supported,
                       " request type " + std::to_string(request.code)
                         + " not supported");
}

remoting_command missing_field(const remoting_command& request,
                               const std::string& field) {
  return make_response(request, response_code::system_error,
                       "the custom field <" + field + "> is null");
}

} // namespace rmq::remoting
