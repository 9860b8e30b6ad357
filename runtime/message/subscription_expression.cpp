#include "runtime/message/subscription_expression.hpp"

#include <algorithm>

#include "messages/common/errors.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq {

namespace {

std::string trim(std::string_view x) {
  auto first = x.find_first_not_of(" \t");
  if (first == std::string_view::npos)
    return {};
  auto last = x.find_last_not_of(" \t");
  return std::string{x.substr(first, last - first + 1)};
}

} // namespace

bool subscription_expression::matches(std::string_view message_tags) const {
  if (all())
    return true;
  return !message_tags.empty()
         && std::find(tags.begin(), tags.end(), message_tags) != tags.end();
}

caf::expected<subscription_expression>
parse_subscription_expression(const std::string& expression) {
  subscription_expression result;
  auto expr = trim(expression);
  if (expr.empty() || expr == subscribe_all)
    return result;
  result.sub_string = expression;
  size_t pos = 0;
  for (;;) {
    auto sep = expr.find("||", pos);
    auto tag = trim(std::string_view{expr}.substr(
      pos, sep == std::string::npos ? std::string::npos : sep - pos));
    if (tag.empty())
      return make_error(errc::subscription_parse_failed,
                        "empty tag in subscription: " + expression);
    if (std::find(result.tags.begin(), result.tags.end(), tag)
        == result.tags.end()) {
      result.codes.push_back(tags_code(tag));
      result.tags.push_back(std::move(tag));
    }
    if (sep == std::string::npos)
      break;
    pos = sep + 2;
  }
  return result;
}

caf::expected<std::vector<int64_t>>
parse_subscription(const std::string& expression) {
  auto expr = parse_subscription_expression(expression);
  if (!expr)
    return std::move(expr.error());
  // Two tags may share a code; the broker needs each code once.
  std::vector<int64_t> codes;
  for (auto code : expr->codes)
    if (std::find(codes.begin(), codes.end(), code) == codes.end())
      codes.push_back(code);
  return codes;
}

subscription_data make_subscription_data(const std::string& topic,
                                         const subscription_expression& expr,
                                         int64_t sub_version) {
  subscription_data result;
  result.topic = topic;
  result.sub_string = expr.sub_string;
  result.expression_type = "TAG";
  result.tags_set = expr.tags;
  for (auto& tag : expr.tags)
    result.code_set.push_back(java_hash(tag));
  result.sub_version = sub_version;
  return result;
}

} // namespace rmq
