#include "apps/rmq-bench/broker_requests.hpp"

#include <memory>
#include <utility>
#include <vector>

#include "messages/common/errors.hpp"
#include "runtime/message/message_batch.hpp"

namespace rmq::bench {

send_message_request bench_send(const std::string& topic, int32_t queue,
                                size_t body_size) {
  send_message_request req;
  req.producer_group = "BenchProducer";
  req.topic = topic;
  req.queue_id = queue;
  req.body.assign(body_size, 'b');
  return req;
}

void send_one(caf::event_based_actor* self, const broker_actor& broker,
              send_message_request req, uint64_t msgs, done_fn done) {
  self->request(broker, caf::infinite, std::move(req))
    .then(
      [=](const send_result& res) {
        if (res.status == static_cast<uint8_t>(send_status::send_ok))
          done(true, msgs, {});
        else
          done(false, 0, to_string(static_cast<send_status>(res.status)));
      },
      [=](const caf::error& err) { done(false, 0, describe(err)); });
}

issue_fn broker_send_request(const broker_actor& broker,
                             const std::string& topic, int msgs,
                             size_t body_size) {
  auto req
    = std::make_shared<send_message_request>(bench_send(topic, 0, body_size));
  if (msgs > 1) {
    std::vector<batch_entry> entries(static_cast<size_t>(msgs));
    for (auto& e : entries)
      e.body.assign(body_size, 'b');
    req->batch = true;
    req->body = *encode_batch(entries);
  }
  auto n = static_cast<uint64_t>(msgs);
  return [=](caf::event_based_actor* self, uint64_t, done_fn done) {
    send_one(self, broker, *req, n, std::move(done));
  };
}

pull_message_request bench_pull(const std::string& topic,
                                const std::string& group, int64_t offset) {
  pull_message_request req;
  req.consumer_group = group;
  req.topic = topic;
  req.queue_id = 0;
  req.queue_offset = offset;
  req.max_msg_nums = 32;
  return req;
}

issue_fn broker_pull_request(const broker_actor& broker,
                             const std::string& topic, const std::string& group,
                             int64_t max_offset,
                             std::shared_ptr<uint64_t> reply_bytes) {
  auto next = std::make_shared<int64_t>(0);
  return [=](caf::event_based_actor* self, uint64_t, done_fn done) {
    if (*next + 32 > max_offset)
      *next = 0;
    auto req = bench_pull(topic, group, *next);
    *next += 32;
    self->request(broker, caf::infinite, std::move(req))
      .then(
        [=](const pull_message_result& res) {
          if (res.status != static_cast<uint8_t>(pull_status::found)) {
            done(false, 0, to_string(static_cast<pull_status>(res.status)));
            return;
          }
          *reply_bytes += res.buffer.size();
          done(true, static_cast<uint64_t>(res.message_count), {});
        },
        [=](const caf::error& err) { done(false, 0, describe(err)); });
  };
}

} // namespace rmq::bench
