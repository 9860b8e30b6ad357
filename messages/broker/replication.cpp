#include "messages/broker/replication.hpp"

#include "messages/common/message_def.hpp"

namespace rmq {

RMQ_DEFINE_MESSAGE(replica_term, epoch, start_offset)

RMQ_DEFINE_MESSAGE(replica_chunk_request, broker_name, broker_id, from,
                   max_bytes, wait_ms, slave_addr, reconciled)

RMQ_DEFINE_MESSAGE(replica_chunk, from, bytes, master_end, terms)

RMQ_DEFINE_MESSAGE(role_change_request, broker_id, role, force)

RMQ_DEFINE_MESSAGE(metadata_request, broker_name, broker_id, topics, groups)

RMQ_DEFINE_MESSAGE(metadata_snapshot, has_topics, topics, has_groups, groups,
                   offsets, schedule, timer)

} // namespace rmq
