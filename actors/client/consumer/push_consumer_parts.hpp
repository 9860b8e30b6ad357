// The push consumer's parts, one file per RocketMQ seam, all working on
// the one actor's state (actors/client/consumer/push_consumer.hpp):
//   push_consumer.cpp           DefaultMQPushConsumerImpl: behavior,
//                               assignment, registration, shutdown, commits
//   push_consumer_pull.cpp      PullAPIWrapper, pullMessage and the start
//                               offsets (computePullFromWhere)
//   consume_concurrently.cpp    ConsumeMessageConcurrentlyService
//   consume_orderly.cpp         ConsumeMessageOrderlyService and the
//                               queue locks (RebalanceImpl lock, unlock)
//   consume_hand_out.cpp        jobs to idle consume workers
// Only those files include this header.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "caf/actor_clock.hpp"

#include "actors/client/consumer/push_consumer.hpp"
#include "actors/client/instance/master_lookup.hpp"
#include "runtime/client/received_message.hpp"

namespace rmq::push_consumer_detail {

constexpr const char* component = "push_consumer";
/// RocketMQ getMaxReconsumeTimes(): -1 means 16 for concurrent listeners.
constexpr int32_t default_max_reconsume = 16;
using self_ptr = push_consumer_actor::stateful_pointer<push_consumer_state>;
using time_point = caf::actor_clock::time_point;

std::string to_text(const message_queue& mq);

int64_t wall_ms(const push_consumer_options& opts);

bool clustering(self_ptr self);

bool needs_lock(self_ptr self);

int64_t now_ns(self_ptr self);

void arm(self_ptr self, time_point at);

push_queue* find_queue(self_ptr self, const message_queue& mq,
                       int64_t generation);

void with_queue_master(self_ptr self, const message_queue& mq, master_found f,
                       master_failed fail);

/// The node to read `mq` at: the master, else a slave (master_lookup.hpp).
void with_master(self_ptr self, const message_queue& mq,
                 std::function<void(client_broker_actor)> f,
                 master_failed fail);

/// The master only: queue locks are taken and released there.
void with_lock_master(self_ptr self, const message_queue& mq,
                      std::function<void(client_broker_actor)> f,
                      master_failed fail);

void forget_master(self_ptr self, const std::string& addr);

void give_up_pull(self_ptr self, push_queue& q);

void check_pull_deadlines(self_ptr self, time_point now);

void back_off(self_ptr self, push_queue& q);

void commit_queues(self_ptr self, const std::vector<push_queue*>& queues,
                   std::function<void()> done);

void commit_queue(self_ptr self, push_queue& q, std::function<void()> done);

void commit_all(self_ptr self, std::function<void()> done);

void drop_queue(self_ptr self, const message_queue& mq);

void assign(self_ptr self, const queue_assignment& a);

consumer_data make_consumer_data(self_ptr self);

void register_rebalance(self_ptr self);

void register_group(self_ptr self);

void finish_shutdown(self_ptr self);

void maybe_finish_shutdown(self_ptr self);

void on_tick(self_ptr self);

void started_at(self_ptr self, const message_queue& mq, int64_t gen,
                int64_t offset);

void start_failed(self_ptr self, const message_queue& mq, int64_t gen,
                  const caf::error& err);

void finish_plan(self_ptr self, const message_queue& mq, int64_t gen,
                 int64_t stored);

void start_queue(self_ptr self, push_queue& q);

void split_into_jobs(self_ptr self, const message_queue& mq, int64_t gen,
                     std::vector<received_message> msgs);

void dead_letter_undecodable(self_ptr self, push_queue& q,
                             std::vector<undecodable_message> bad);

void on_pulled(self_ptr self, const message_queue& mq, int64_t gen,
               pull_message_result res);

void skip_damaged(self_ptr self, push_queue& q, const caf::error& err);

void try_pull(self_ptr self, push_queue& q);

void resume(self_ptr self, push_queue& q);

void remove_consumed(self_ptr self, const message_queue& mq, int64_t gen,
                     const std::vector<int64_t>& offsets);

void retry_locally(self_ptr self, const message_queue& mq, int64_t gen,
                   std::vector<received_message> msgs);

void send_back(self_ptr self, const received_message& m, int32_t max_times,
               std::function<void(bool)> done, int32_t delay_level = 0);

void on_concurrent_result(self_ptr self, const message_queue& mq, int64_t gen,
                          const std::vector<int64_t>& offsets,
                          consume_result res);

void apply_locks(self_ptr self, const std::vector<message_queue>& asked,
                 const std::vector<client_queue>& held);

void lock_queues(self_ptr self, const std::string& broker_name,
                 std::vector<message_queue> queues);

void lock_all(self_ptr self);

void unlock_queues(self_ptr self, std::vector<message_queue> queues,
                   std::function<void()> done);

void batch_of_dropped_queue_done(self_ptr self, const message_queue& mq,
                                 int64_t gen);

void on_orderly_result(self_ptr self, const message_queue& mq, int64_t gen,
                       const std::vector<int64_t>& offsets,
                       std::vector<received_message> msgs,
                       orderly_status status);

void start_over(self_ptr self, push_queue& q);

void hand_to_worker(self_ptr self, push_job job);

void hand_out(self_ptr self);

std::vector<received_message>
from_process_queue(self_ptr self, const message_queue& mq, int64_t gen,
                   const std::vector<int64_t>& offsets);

} // namespace rmq::push_consumer_detail
