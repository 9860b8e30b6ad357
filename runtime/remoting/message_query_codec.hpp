// The broker's message lookups over remoting, as mqadmin, the dashboard
// and the Java client's viewMessage / queryMessage send them:
// VIEW_MESSAGE_BY_ID (33, the commit-log offset an offsetMsgId carries)
// and QUERY_MESSAGE (12, by key through the index). Both answer with the
// stored records as the body.
#pragma once

#include <string>

#include "messages/broker/admin.hpp"
#include "messages/store/store.hpp"
#include "runtime/remoting/remoting_command.hpp"

namespace rmq::remoting {

/// VIEW_MESSAGE_BY_ID: `offset`.
bool decode_view_message(const remoting_command& cmd, view_message_request& out,
                         std::string& err);

/// SUCCESS with the record as the body.
remoting_command view_message_response(const remoting_command& req,
                                       const std::string& record);

/// QUERY_MESSAGE: `topic`, `key`, `maxNum`, `beginTimestamp`,
/// `endTimestamp`.
bool decode_query_message(const remoting_command& cmd,
                          query_message_request& out, std::string& err);

/// SUCCESS with the records as the body and QueryMessageResponseHeader's
/// `indexLastUpdateTimestamp` and `indexLastUpdatePhyoffset` (the last
/// record's offset: our index is written with the record); nothing found
/// is QUERY_NOT_FOUND with RocketMQ's remark.
remoting_command query_message_response(const remoting_command& req,
                                        const query_message_result& res);

} // namespace rmq::remoting
