#include "runtime/message_properties.hpp"

#include "messages/errors.hpp"
#include "runtime/storage/log_format.hpp"
#include "runtime/storage/message_record.hpp"

namespace rmq {

caf::expected<property_list> decode_properties(std::string_view props) {
  property_list result;
  size_t pos = 0;
  while (pos < props.size()) {
    auto end = props.find(storage::property_separator, pos);
    if (end == std::string_view::npos)
      end = props.size();
    auto pair = props.substr(pos, end - pos);
    auto sep = pair.find(storage::name_value_separator);
    if (sep == std::string_view::npos || sep == 0)
      return make_error(errc::message_illegal,
                        "malformed property at byte " + std::to_string(pos));
    result.emplace_back(std::string{pair.substr(0, sep)},
                        std::string{pair.substr(sep + 1)});
    pos = end + 1;
  }
  return result;
}

std::string encode_properties(const property_list& xs) {
  std::string result;
  for (auto& [k, v] : xs)
    storage::append_property(result, k, v);
  return result;
}

void set_property(std::string& props, std::string_view key,
                  std::string_view value) {
  std::string result;
  size_t pos = 0;
  while (pos < props.size()) {
    auto end = props.find(storage::property_separator, pos);
    if (end == std::string::npos)
      end = props.size();
    auto pair = std::string_view{props}.substr(pos, end - pos);
    auto sep = pair.find(storage::name_value_separator);
    if (sep == std::string_view::npos || pair.substr(0, sep) != key) {
      result.append(pair);
      result += storage::property_separator;
    }
    pos = end + 1;
  }
  storage::append_property(result, key, value);
  props = std::move(result);
}

} // namespace rmq
