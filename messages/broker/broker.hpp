// The broker's front door: the one actor rmq-node publishes with
// --role=broker, and the only handle clients and admins get. It hands each
// request to the actor that owns it (actors/broker/node/broker_frontend.*);
// every request and answer type is defined in the messages/broker/ header
// of that area.
#pragma once

#include <cstdint>
#include <string>

#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"

#include "messages/broker/admin.hpp"
#include "messages/broker/client_manager.hpp"
#include "messages/broker/pull.hpp"
#include "messages/broker/replication.hpp"
#include "messages/broker/reply.hpp"
#include "messages/broker/send.hpp"
#include "messages/broker/send_back.hpp"
#include "messages/broker/topics.hpp"
#include "messages/broker/transaction.hpp"
#include "messages/client/client.hpp"
#include "messages/common/common.hpp"
#include "messages/namesrv/route.hpp"
#include "messages/store/store.hpp"

namespace rmq {

/// Interface of a broker: what its clients use (client_broker_actor,
/// messages/client/client.hpp) and what tools and other brokers add. The
/// dump answers every actor's dump of the node in one document.
using broker_actor = client_broker_actor::extend<
  // -- message lookups
  caf::replies_to<earliest_msg_store_time_request>::with<int64_t>,
  caf::replies_to<view_message_request>::with<std::string>,
  caf::replies_to<query_message_request>::with<query_message_result>,
  // -- admin
  caf::replies_to<update_topic_request>::with<data_version>,
  caf::replies_to<delete_topic_in_broker_request>::with<data_version>,
  caf::replies_to<get_all_topic_config_request>::with<topic_config_set>,
  caf::replies_to<update_sub_group_request>::with<data_version>,
  caf::replies_to<delete_sub_group_request>::with<data_version>,
  caf::replies_to<get_all_sub_group_request>::with<subscription_group_set>,
  caf::replies_to<topic_stats_request>::with<topic_stats>,
  caf::replies_to<consume_stats_request>::with<consume_stats>,
  caf::replies_to<broker_runtime_info_request>::with<broker_runtime_info>,
  // -- consumer groups' members (mqadmin consumerConnection)
  caf::replies_to<get_consumer_connection_request>::with<consumer_connection>,
  caf::replies_to<get_consumer_running_info_request>::with<
    consumer_running_info>,
  // A slave's ask for this master's log (docs/replication.md).
  caf::replies_to<replica_chunk_request>::with<replica_chunk>,
  // A slave's ask for this master's metadata.
  caf::replies_to<metadata_request>::with<metadata_snapshot>,
  // rmq-admin promote / demote: answers what the broker restarts as.
  caf::replies_to<role_change_request>::with<std::string>,
  // -- request-reply: a consumer's reply to a request
  caf::replies_to<send_reply_message_request>::with<send_result>,
  // -- transactions: END_TRANSACTION (producers send it one-way)
  caf::replies_to<end_transaction_request>::with<caf::ok_atom>>;

} // namespace rmq
