// The lite pull consumer's parts, all working on the one actor's state
// (actors/client/consumer/lite_pull_consumer.hpp):
//   lite_pull_consumer.cpp       DefaultLitePullConsumerImpl: behavior,
//                                assignment, registration, commits
//   lite_pull_consumer_pull.cpp  where a queue starts, its pulls
//                                (PullTaskImpl) and the poll buffer
// Only those files include this header.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "caf/expected.hpp"

#include "actors/client/consumer/lite_pull_consumer.hpp"

namespace rmq::lite_pull_detail {

constexpr const char* component = "lite_pull_consumer";
using lite_ptr
  = lite_pull_consumer_actor::stateful_pointer<lite_pull_consumer_state>;
using broker_callback = std::function<void(caf::expected<client_broker_actor>)>;
/// Also gets the broker's address (empty on failure).
using broker_at_callback
  = std::function<void(caf::expected<client_broker_actor>, const std::string&)>;

int64_t wall_ms(lite_ptr self);

caf::timespan request_timeout(lite_ptr self);

void with_broker_at(lite_ptr self, const message_queue& mq,
                    broker_at_callback k, int64_t prefer = 0);

void with_broker(lite_ptr self, const message_queue& mq, broker_callback k);

lite_pull_queue* current(lite_ptr self, const message_queue& mq,
                         uint64_t generation);

void back_off(lite_ptr self, lite_pull_queue& q, const caf::error& err,
              const char* what);

void started(lite_ptr self, const message_queue& mq, uint64_t generation,
             int64_t offset);

void start_by_rule(lite_ptr self, const message_queue& mq, uint64_t generation);

void start_queue(lite_ptr self, lite_pull_queue& q);

void serve_polls(lite_ptr self);

void handle_pull(lite_ptr self, const message_queue& mq, uint64_t generation,
                 pull_message_result& res);

void pull_queue(lite_ptr self, lite_pull_queue& q);

void pump(lite_ptr self);

void commit_queues(lite_ptr self, const std::vector<message_queue>& mqs,
                   std::function<void(caf::error)> done);

std::vector<message_queue> owned(lite_ptr self);

void drop_buffered(lite_pull_consumer_state& st, const message_queue& mq);

void drop_queue(lite_ptr self, const message_queue& mq);

void reassign(lite_ptr self, const std::vector<message_queue>& wanted,
              const std::set<std::string>& topics);

void on_tick(lite_ptr self);

void register_assigned(lite_ptr self);

void register_consumer(lite_ptr self);

bool seek_to(lite_ptr self, const message_queue& mq, int64_t offset);

} // namespace rmq::lite_pull_detail
