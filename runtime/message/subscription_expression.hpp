// A TAG subscription expression ("*", "tagA || tagB"), shared by the
// broker (tags codes to filter the consume queue) and the client (tag
// strings to re-check what the broker sent, the heartbeat's
// subscription_data). RocketMQ FilterAPI.buildSubscriptionData.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "caf/expected.hpp"

#include "messages/broker/client_manager.hpp"

namespace rmq {

/// "*": every tag (RocketMQ SubscriptionData.SUB_ALL).
constexpr char subscribe_all[] = "*";

/// A parsed expression.
struct subscription_expression {
  /// The expression as written; "*" for every tag.
  std::string sub_string = subscribe_all;
  /// The tags, trimmed, each once, in the order written; empty: every tag.
  std::vector<std::string> tags;
  /// The consume-queue tags code of each tag (tags_code).
  std::vector<int64_t> codes;

  /// Returns whether every tag is subscribed.
  bool all() const {
    return tags.empty();
  }

  /// The client-side re-check (RocketMQ PullAPIWrapper): tags codes are
  /// hashes, so the broker may send a message whose tag only collides with
  /// a subscribed one. A message without tags matches only "*".
  bool matches(std::string_view message_tags) const;
};

/// Parses an expression: "*", "" or blanks mean every tag, else
/// `||`-separated tags; subscription_parse_failed for an empty tag
/// ("a || ", "||").
caf::expected<subscription_expression>
parse_subscription_expression(const std::string& expression);

/// Returns the tags codes of an expression (the broker's view): empty for
/// every tag, else one code per distinct tag; errors as above.
caf::expected<std::vector<int64_t>>
parse_subscription(const std::string& expression);

/// The heartbeat's entry for `topic` (expression type TAG, Java hash codes
/// of the tags, `sub_version` as given: RocketMQ uses the time of
/// subscribing).
subscription_data make_subscription_data(const std::string& topic,
                                         const subscription_expression& expr,
                                         int64_t sub_version);

} // namespace rmq
