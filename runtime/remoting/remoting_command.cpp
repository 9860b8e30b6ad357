#include "runtime/remoting/remoting_command.hpp"

#include <utility>

namespace rmq::remoting {

remoting_command make_response(const remoting_command& request, int32_t code,
                               std::optional<std::string> remark) {
  remoting_command out;
  out.code = code;
  out.opaque = request.opaque;
  out.flag = command_flag::response;
  out.remark = std::move(remark);
  out.serialization = request.serialization;
  return out;
}

} // namespace rmq::remoting
