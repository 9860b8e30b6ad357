#include "actors/broker/processor/send_back_processor.hpp"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/broker/processor/send_processor.hpp"
#include "messages/common/errors.hpp"
#include "messages/namesrv/route.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* send_back_processor_state::name = "send_back_processor";

namespace {

using self_ptr
  = send_back_processor_actor::stateful_pointer<send_back_processor_state>;
using promise = caf::typed_response_promise<caf::ok_atom>;

// One send-back on its way through table, queue service and commit log.
struct pending {
  consumer_send_back_request req;
  int32_t retry_queue_id = 0;
  std::string raw; // the original record; the view points into it
  record_view rec;
};

void fail(self_ptr self, promise& rp, const char* what, const caf::error& err) {
  ++self->state.failed;
  log_request_failure("send_back", what, err);
  rp.deliver(to_send_error(err));
}

caf::error check_writable(const topic_config& tc) {
  if ((tc.perm & perm::write) == 0)
    return make_error(errc::no_permission,
                      "the topic[" + tc.topic_name
                        + "] sending message is forbidden");
  return caf::none;
}

int32_t random_queue(send_back_processor_state& st, int32_t queue_nums) {
  if (queue_nums <= 1)
    return 0;
  std::uniform_int_distribution<int32_t> dist{0, queue_nums - 1};
  return dist(st.rng);
}

// The copy to store (RocketMQ copies topic-independent fields, all
// properties, and adds RETRY_TOPIC / ORIGIN_MESSAGE_ID on the first
// send-back). `delay_level` 0 removes DELAY (dead letters are not
// scheduled).
caf::expected<store_message> make_copy(const send_back_processor_state& st,
                                       const pending& p, std::string topic,
                                       int32_t queue_id, int32_t delay_level) {
  auto& rec = p.rec;
  auto props = decode_properties(rec.properties);
  if (!props)
    return make_error(errc::system_error, "the message at offset "
                                            + std::to_string(p.req.offset)
                                            + " has malformed properties");
  props->erase(std::remove_if(props->begin(), props->end(),
                              [](auto& kv) { return kv.first == "DELAY"; }),
               props->end());
  auto has = [&](std::string_view key) {
    return std::any_of(props->begin(), props->end(),
                       [&](auto& kv) { return kv.first == key; });
  };
  if (!has(property_retry_topic))
    props->emplace_back(property_retry_topic, std::string{rec.topic});
  if (!has(property_origin_message_id))
    props->emplace_back(property_origin_message_id,
                        encode_offset_msg_id(st.options.store_ip,
                                             st.options.store_port,
                                             rec.phys_offset));
  if (delay_level > 0)
    props->emplace_back(property_delay, std::to_string(delay_level));
  store_message msg;
  msg.topic = std::move(topic);
  msg.queue_id = queue_id;
  msg.flag = rec.flag;
  msg.sys_flag = rec.sys_flag;
  msg.born_timestamp = rec.born_timestamp;
  msg.reconsume_times = rec.reconsume_times + 1;
  msg.body = std::string{rec.body};
  msg.properties = encode_properties(*props);
  return msg;
}

void store(self_ptr self, store_message msg, bool dead, promise rp) {
  auto& st = self->state;
  std::vector<store_message> batch;
  batch.push_back(std::move(msg));
  self
    ->request(st.commit_log, st.options.store_timeout, caf::put_atom::value,
              std::move(batch))
    .then(
      [self, dead, rp](std::vector<put_result>& res) mutable {
        auto& st = self->state;
        if (res.size() != 1) {
          fail(self, rp, "append",
               make_error(errc::system_error, "the store answered "
                                                + std::to_string(res.size())
                                                + " results for 1 message"));
          return;
        }
        auto& r = res.front();
        // Stored but not yet durable still counts (RocketMQ answers
        // SUCCESS for every stored put).
        auto stored_late = r.phys_offset >= 0 && r.error
                           && r.error.category() == errc_category
                           && (r.error == errc::flush_disk_timeout
                               || r.error == errc::flush_slave_timeout
                               || r.error == errc::slave_not_available);
        if (r.error && !stored_late) {
          fail(self, rp, "append", r.error);
          return;
        }
        if (dead)
          ++st.dead;
        else
          ++st.retried;
        rp.deliver(caf::ok_atom::value);
      },
      [self, rp](caf::error& err) mutable { fail(self, rp, "append", err); });
}

void to_dead_letters(self_ptr self, std::shared_ptr<pending> p, promise rp) {
  auto& st = self->state;
  group_topic_request dlq{p->req.group, 1, perm::read_write, true};
  self->request(st.topics, st.options.table_timeout, std::move(dlq))
    .then(
      [self, p, rp](topic_config& tc) mutable {
        auto& st = self->state;
        if (auto err = check_writable(tc)) {
          fail(self, rp, "dead-letter topic", err);
          return;
        }
        auto msg = make_copy(st, *p, tc.topic_name,
                             random_queue(st, tc.write_queue_nums), 0);
        if (!msg) {
          fail(self, rp, "copy", msg.error());
          return;
        }
        store(self, std::move(*msg), true, rp);
      },
      [self, rp](caf::error& err) mutable {
        fail(self, rp, "dead-letter topic", err);
      });
}

// The original is read: retry or dead letter (RocketMQ compares the
// original's reconsume times, before the + 1, with the maximum).
void route(self_ptr self, std::shared_ptr<pending> p, std::string retry_topic,
           promise rp) {
  auto& st = self->state;
  auto max = p->req.max_reconsume_times >= 0
               ? p->req.max_reconsume_times
               : st.options.default_max_reconsume_times;
  auto level = p->req.delay_level;
  if (p->rec.reconsume_times >= max || level < 0) {
    to_dead_letters(self, std::move(p), rp);
    return;
  }
  if (level == 0)
    level = 3 + p->rec.reconsume_times;
  auto msg = make_copy(st, *p, std::move(retry_topic), p->retry_queue_id,
                       level);
  if (!msg) {
    fail(self, rp, "copy", msg.error());
    return;
  }
  // The copy waits in SCHEDULE_TOPIC_XXXX; the schedule service moves it
  // to the retry topic when its level's delay has passed.
  if (auto scheduled = to_schedule(*msg, st.options.max_delay_level);
      !scheduled) {
    fail(self, rp, "copy", scheduled.error());
    return;
  }
  store(self, std::move(*msg), false, rp);
}

void read_original(self_ptr self, std::shared_ptr<pending> p,
                   std::string retry_topic, promise rp) {
  auto& st = self->state;
  auto offset = p->req.offset;
  self
    ->request(st.queue_service, st.options.table_timeout, caf::get_atom::value,
              offset)
    .then(
      [self, p, retry_topic, rp](std::string& raw) mutable {
        p->raw = std::move(raw);
        auto status = decode_record(p->raw.data(), p->raw.size(), p->rec, true);
        if (status != decode_status::ok) {
          fail(self, rp, "read original",
               make_error(errc::system_error, "look message by offset failed, "
                                                + std::to_string(p->req.offset)
                                                + ": no valid record there"));
          return;
        }
        route(self, std::move(p), std::move(retry_topic), rp);
      },
      [self, offset, rp](caf::error& err) mutable {
        auto detail = err.category() == errc_category ? error_detail(err)
                                                      : describe(err);
        fail(self, rp, "read original",
             make_error(errc::system_error, "look message by offset failed, "
                                              + std::to_string(offset) + ": "
                                              + detail));
      });
}

} // namespace

nlohmann::json send_back_processor_state::dump_fields() const {
  return {
    {"default_max_reconsume_times", options.default_max_reconsume_times},
    {"retry_queue_nums", options.retry_queue_nums},
    {"requests", requests},
    {"retried", retried},
    {"dead", dead},
    {"failed", failed},
  };
}

send_back_processor_actor::behavior_type send_back_processor(
  send_back_processor_actor::stateful_pointer<send_back_processor_state> self,
  send_back_processor_options options, topic_config_table_actor topics,
  queue_service_actor queue_service, commit_log_writer_actor commit_log) {
  auto& st = self->state;
  st.options = std::move(options);
  st.topics = std::move(topics);
  st.queue_service = std::move(queue_service);
  st.commit_log = std::move(commit_log);
  auto seed = st.options.seed != 0 ? st.options.seed
                                   : (uint64_t{std::random_device{}()} << 32)
                                       | std::random_device{}();
  st.rng.seed(seed);
  return {
    [=](consumer_send_back_request& req) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      ++st.requests;
      if (req.group.empty() || req.offset < 0) {
        ++st.failed;
        return make_error(errc::invalid_parameter,
                          "a send-back needs a group and an offset >= 0");
      }
      auto rp = self->make_response_promise<caf::ok_atom>();
      auto p = std::make_shared<pending>();
      p->req = std::move(req);
      group_topic_request retry{p->req.group, st.options.retry_queue_nums,
                                perm::read_write, false};
      self->request(st.topics, st.options.table_timeout, std::move(retry))
        .then(
          [self, p, rp](topic_config& tc) mutable {
            auto& st = self->state;
            if (auto err = check_writable(tc)) {
              fail(self, rp, "retry topic", err);
              return;
            }
            p->retry_queue_id = random_queue(st, tc.write_queue_nums);
            read_original(self, p, tc.topic_name, rp);
          },
          [self, rp](caf::error& err) mutable {
            fail(self, rp, "retry topic", err);
          });
      return rp;
    },
    dump_handler(self),
  };
}

} // namespace rmq
