// Reads what Java's fastjson writes for RocketMQ's bodies: JSON, except
// that a map keyed by an object (a MessageQueue in ConsumerRunningInfo's
// mqTable, TopicStatsTable, ConsumeStats) has that object as the key.
// Such a key is read as its compact JSON text (`{"brokerName":"b",
// "queueId":0,"topic":"T"}`), so the result is plain JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rmq::remoting {

/// The value, or none with `err` set (where and why it stopped).
std::optional<nlohmann::json> read_fastjson(std::string_view text,
                                            std::string& err);

} // namespace rmq::remoting
