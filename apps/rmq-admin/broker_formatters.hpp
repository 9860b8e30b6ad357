// Text that rmq-admin's broker and message commands print, shaped like
// mqadmin's: TopicConfig / SubscriptionGroupConfig toString, the tables of
// topicStatus, brokerStatus, consumerProgress and queryMsgByKey, and one
// block per message shared by every message command.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "caf/expected.hpp"

#include "messages/broker/broker.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq::admin {

/// Java's UtilAll.timeMillisToHumanString2: "yyyy-MM-dd HH:mm:ss,SSS" in
/// local time.
std::string human_time_ms(int64_t ms);

/// UtilAll.formatDate(..., "yyyy-MM-dd HH:mm:ss") in local time.
std::string human_time_s(int64_t ms);

/// Reads printMsg's timestamps: ms since the epoch, or mqadmin's
/// "yyyy-MM-dd#HH:mm:ss:SSS" in local time; false if it is neither.
bool parse_admin_time(const std::string& text, int64_t& ms);

/// PermName.perm2String: "RW-", "R--", "RWX", ...
std::string perm_to_string(int32_t perm);

/// TopicConfig.toString of RocketMQ 4.9 (no attributes).
std::string format_topic_config(const topic_config& cfg);

/// SubscriptionGroupConfig.toString (Guava's toStringHelper).
std::string format_sub_group(const subscription_group_config& cfg);

/// topicStatus's "#Broker Name #QID #Min Offset #Max Offset #Last Updated"
/// table; rows sorted by broker name and queue id.
std::string format_topic_status(std::vector<topic_stats> stats);

/// brokerStatus: "%-32s: %s" per runtime figure, sorted by key; with
/// `addr` non-empty each line starts with "%-24s " of it (the -c form).
std::string format_broker_status(const broker_runtime_info& info,
                                 const std::string& addr);

/// consumerConnection -g (RocketMQ 4.9): one "%03d  clientId clientAddr
/// language version" line per member, then "Below is subscription:",
/// then ConsumeType, MessageModel and ConsumeFromWhere.
std::string format_consumer_connection(const consumer_connection& cc);

/// ConsumerRunningInfo as mqadmin consumerStatus -i prints it
/// (formatString): properties, subscriptions, per queue the consumer
/// offset and the process queue, rates, jstack. `body` is what the client
/// answered (fastjson's text); text that does not read is shown as it is.
std::string format_consumer_running_info(const std::string& body);

/// mqadmin consumerStatus's verdict over the members' running info (by
/// client id): whether they subscribe alike and, in a clustering group,
/// whether no queue is held by two members.
std::string
running_info_analysis(const std::map<std::string, std::string>& bodies);

/// consumerProgress -g (RocketMQ 4.9): "#Topic #Broker Name #QID #Broker
/// Offset #Consumer Offset #Diff #LastTime" rows sorted by topic, broker
/// name and queue id, then "Consume TPS: %.2f" and "Diff Total: %d".
std::string format_consumer_progress(std::vector<queue_progress> queues,
                                     double consume_tps);

/// The offsetMsgId of a stored record (its store host and phys offset).
std::string offset_msg_id_of(const record_view& rec);

/// The message id clients know: UNIQ_KEY, or the offsetMsgId without one.
std::string msg_id_of(const record_view& rec);

/// The block mqadmin's queryMsgById prints per message ("%-20s %s" lines:
/// OffsetID, MsgId, Topic, Tags, Keys, Queue ID, ...), ending with the
/// body as text when `with_body`. Every message command prints this.
std::string format_message(const record_view& rec, bool with_body = true);

/// queryMsgByKey's "#Message ID #QID #Offset" table.
std::string format_message_table(const std::vector<record_view>& recs);

/// mqadmin haStatus' text from a broker's dump (`addr`: the broker
/// asked): a master's slaves (ha_service), or a slave's copy (ha_client);
/// corrupt_data when the dump has neither.
caf::expected<std::string> format_ha_status(const std::string& dump,
                                            const std::string& addr);

} // namespace rmq::admin
