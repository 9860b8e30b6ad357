#include "apps/rmq-demo/broker_probe.hpp"

#include "messages/common/errors.hpp"
#include "runtime/message/message_batch.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/net/blocking_ask.hpp"
#include "runtime/net/connect.hpp"

namespace rmq::demo {

namespace {

constexpr auto request_timeout = std::chrono::seconds{10};

} // namespace

broker_probe::broker_probe(caf::actor_system& sys, host_port addr)
  : where_(std::move(addr)), addr_(where_.to_string()), self_(sys) {
  // nop
}

caf::error broker_probe::connect(std::chrono::milliseconds timeout) {
  auto hdl = rmq::connect<broker_actor>(self_, where_, timeout);
  if (!hdl)
    return std::move(hdl.error());
  hdl_ = std::move(*hdl);
  return caf::error{};
}

caf::error broker_probe::create_topic(const std::string& topic,
                                      int32_t queues) {
  topic_config tc;
  tc.topic_name = topic;
  tc.read_queue_nums = tc.write_queue_nums = queues;
  auto res = blocking_ask<data_version>(self_, hdl_, request_timeout,
                                        update_topic_request{tc});
  return res ? caf::error{} : std::move(res.error());
}

caf::expected<int64_t>
broker_probe::send_batch(const std::string& topic, int32_t queue,
                         const std::vector<std::string>& bodies) {
  std::vector<batch_entry> entries;
  for (auto& body : bodies)
    entries.push_back(batch_entry{0, body, {}});
  auto encoded = encode_batch(entries);
  if (!encoded)
    return std::move(encoded.error());
  send_message_request req;
  req.producer_group = "DemoProducer";
  req.topic = topic;
  req.queue_id = queue;
  req.batch = true;
  req.body = std::move(*encoded);
  auto res = blocking_ask<send_result>(self_, hdl_, request_timeout,
                                       std::move(req));
  if (!res)
    return std::move(res.error());
  if (res->status != static_cast<uint8_t>(send_status::send_ok))
    return make_error(errc::system_error,
                      "send status " + std::to_string(res->status));
  return res->queue_offset;
}

caf::expected<broker_probe::pulled>
broker_probe::pull(const std::string& topic, int32_t queue, int64_t offset,
                   std::chrono::milliseconds suspend) {
  pull_message_request req;
  req.consumer_group = "DemoConsumer";
  req.topic = topic;
  req.queue_id = queue;
  req.queue_offset = offset;
  req.max_msg_nums = 256;
  if (suspend.count() > 0) {
    req.sys_flag = pull_sys_flag::suspend;
    req.suspend_timeout_ms = suspend.count();
  }
  auto res = blocking_ask<pull_message_result>(
    self_, hdl_, request_timeout + suspend, std::move(req));
  if (!res)
    return std::move(res.error());
  pulled out;
  out.next_offset = res->next_begin_offset;
  if (res->status != static_cast<uint8_t>(pull_status::found))
    return out;
  auto records = decode_records(res->buffer,
                                static_cast<size_t>(res->message_count));
  if (!records)
    return std::move(records.error());
  for (auto& rec : *records)
    out.bodies.emplace_back(rec.body);
  return out;
}

caf::expected<int64_t> broker_probe::max_offset(const std::string& topic,
                                                int32_t queue) {
  auto res = blocking_ask<queue_offsets>(self_, hdl_, request_timeout,
                                         get_offset_request{topic, queue});
  if (!res)
    return std::move(res.error());
  return res->max_offset;
}

caf::expected<std::vector<std::string>>
broker_probe::consumers(const std::string& group) {
  auto res = blocking_ask<consumer_list>(self_, hdl_, request_timeout,
                                         get_consumer_list_request{group});
  if (!res)
    return std::move(res.error());
  return std::move(res->client_ids);
}

} // namespace rmq::demo
