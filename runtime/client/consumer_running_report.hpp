// What a CAF client says of one of its consumers when a broker asks for
// it (GET_CONSUMER_RUNNING_INFO, 307, for an admin): RocketMQ's
// ConsumerRunningInfo, filled from the group's heartbeat data and the
// consumer actor's own dump, so it shows what the consumer holds now.
#pragma once

#include <nlohmann/json.hpp>

#include "messages/broker/client_manager.hpp"
#include "runtime/remoting/consumer_running_info_body.hpp"

namespace rmq {

/// `consumer_dump`: the consumer actor's dump (actors/common/dump.hpp),
/// or null when there is none to ask; its "queues" fill the mqTable.
remoting::running_info_report
consumer_running_report(const consumer_data& group,
                        const nlohmann::json& consumer_dump);

} // namespace rmq
