#include "messages/common/errors.hpp"

#include "caf/make_message.hpp"
#include "caf/message.hpp"
#include "caf/sec.hpp"

namespace rmq {

std::string to_string(errc x) {
  switch (x) {
    case errc::system_error:
      return "system_error";
    case errc::system_busy:
      return "system_busy";
    case errc::request_code_not_supported:
      return "request_code_not_supported";
    case errc::flush_disk_timeout:
      return "flush_disk_timeout";
    case errc::slave_not_available:
      return "slave_not_available";
    case errc::flush_slave_timeout:
      return "flush_slave_timeout";
    case errc::message_illegal:
      return "message_illegal";
    case errc::service_not_available:
      return "service_not_available";
    case errc::no_permission:
      return "no_permission";
    case errc::topic_not_exist:
      return "topic_not_exist";
    case errc::subscription_group_not_exist:
      return "subscription_group_not_exist";
    case errc::pull_not_found:
      return "pull_not_found";
    case errc::pull_retry_immediately:
      return "pull_retry_immediately";
    case errc::pull_offset_moved:
      return "pull_offset_moved";
    case errc::query_not_found:
      return "query_not_found";
    case errc::subscription_parse_failed:
      return "subscription_parse_failed";
    case errc::invalid_parameter:
      return "invalid_parameter";
    case errc::broker_not_found:
      return "broker_not_found";
    case errc::io_error:
      return "io_error";
    case errc::corrupt_data:
      return "corrupt_data";
    case errc::not_ready:
      return "not_ready";
    case errc::queue_full:
      return "queue_full";
    case errc::properties_size_exceeded:
      return "properties_size_exceeded";
    case errc::disk_full:
      return "disk_full";
    case errc::request_timeout:
      return "request_timeout";
  }
  return "unknown_errc(" + std::to_string(static_cast<int>(x)) + ")";
}

caf::error make_error(errc x) {
  return {static_cast<uint8_t>(x), errc_category};
}

caf::error make_error(errc x, std::string detail) {
  return {static_cast<uint8_t>(x), errc_category,
          caf::make_message(std::move(detail))};
}

std::string error_detail(const caf::error& err) {
  if (err.category() == errc_category
      && err.context().match_elements<std::string>())
    return err.context().get_as<std::string>(0);
  return {};
}

std::string render_error(uint8_t code, caf::atom_value,
                         const caf::message& context) {
  auto result = "rmq::" + to_string(static_cast<errc>(code));
  if (context.match_elements<std::string>())
    result += ": " + context.get_as<std::string>(0);
  return result;
}

std::string describe(const caf::error& err) {
  if (!err)
    return "no error";
  if (err.category() == errc_category)
    return render_error(err.code(), err.category(), err.context());
  if (err.category() == caf::atom("system")) {
    auto out = "caf::" + caf::to_string(static_cast<caf::sec>(err.code()));
    // Our own words on a CAF error (a remoting ask that lost its client).
    if (err.context().match_elements<std::string>())
      out += ": " + err.context().get_as<std::string>(0);
    return out;
  }
  return caf::to_string(err);
}

} // namespace rmq
