// The send loop's parts, one file per RocketMQ seam, all working on the one
// actor's state (actors/client/producer/send_loop.hpp):
//   send_loop.cpp          DefaultMQProducerImpl: behavior, starting a
//                          send, shutdown, the dump
//   send_routes.cpp        tryToFindTopicPublishInfo: the topics' routes
//   send_attempt.cpp       sendDefaultImpl and sendKernelImpl: the
//                          queue of each attempt, retries, ending a send
//   send_batching.cpp      auto-batching (RocketMQ 5 ProduceAccumulator)
//   send_request_reply.cpp request-reply (RequestResponseFuture)
// Only those files include this header.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "caf/actor_clock.hpp"
#include "caf/expected.hpp"
#include "caf/typed_response_promise.hpp"

#include "actors/client/producer/send_loop.hpp"

namespace rmq::send_loop_detail {

constexpr const char* component = "send_loop";
using loop_ptr = producer_actor::stateful_pointer<send_loop_state>;
using time_point = caf::actor_clock::time_point;
using result_promise = caf::typed_response_promise<client_send_result>;
using broker_cont = std::function<void(caf::expected<client_broker_actor>)>;

int64_t to_ms(caf::timespan x);

int64_t now_ns(loop_ptr self);

int64_t wall_ms(const send_loop_state& st);

uint32_t client_ipv4(const std::string& client_id);

bool is_rmq(const caf::error& err);

bool retryable(const caf::error& err);

bool connection_lost(const caf::error& err);

std::string brokers_text(const std::vector<std::string>& xs);

caf::error all_failed(loop_ptr self, const send_loop_op& op);

void set_route(loop_ptr self, const std::string& topic,
               const topic_route_data& route, bool from_default);

void resume_waiters(loop_ptr self, const std::string& topic,
                    const caf::error& err);

void fetch_route(loop_ptr self, const std::string& topic,
                 caf::timespan timeout);

void with_route(loop_ptr self, const std::string& topic, time_point deadline,
                std::function<void(const caf::error&)> f);

void with_broker(loop_ptr self, const std::string& addr, caf::timespan timeout,
                 broker_cont f);

void release_async(send_loop_state& st, const send_loop_op& op);

void succeed(loop_ptr self, uint64_t id, const send_result& res,
             const message_queue& queue);

void fail(loop_ptr self, uint64_t id, const caf::error& err);

void retry_or_fail(loop_ptr self, uint64_t id);

void report(loop_ptr self, const std::string& broker, caf::timespan latency,
            bool isolation, bool reachable);

void attempt_failed(loop_ptr self, uint64_t id, const std::string& broker,
                    const std::string& addr, time_point begin,
                    const caf::error& err);

bool batchable(const send_loop_state& st, const client_message& msg);

std::optional<message_queue> pick_queue(loop_ptr self, const send_loop_op& op,
                                        send_loop_topic& tp);

bool divert_to_batch(loop_ptr self,
                     std::map<uint64_t, send_loop_op>::iterator i,
                     const message_queue& queue);

void attempt_answered(loop_ptr self, uint64_t id, uint64_t token,
                      const pending_attempt& a, const message_queue& queue,
                      const send_result& res);

void send_to_broker(loop_ptr self, uint64_t id, const message_queue& queue,
                    const std::string& addr, send_message_request req,
                    time_point started, caf::timespan timeout);

void attempt(loop_ptr self, uint64_t id);

void arm_attempt_timer(loop_ptr self, time_point deadline);

void attempt_timer_fired(loop_ptr self);

uint64_t new_op(loop_ptr self, send_loop_op op);

void start(loop_ptr self, uint64_t id);

caf::error not_running();

send_loop_op single_op(loop_ptr self, const client_message& msg,
                       send_loop_op::kind mode, bool defer_req = false);

caf::error send_async(loop_ptr self, const client_message& msg,
                      async_reply reply);

void flush_queued(loop_ptr self, const std::string& broker, bool everything);

caf::result<received_message> request_one(loop_ptr self, client_message msg,
                                          caf::timespan timeout);

void maybe_finish_stop(loop_ptr self);

} // namespace rmq::send_loop_detail
