#include "actors/broker/processor/reply_processor.hpp"

#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/actor.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/reply_message.hpp"
#include "runtime/message/send_checks.hpp"
#include "runtime/storage/message_store.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* reply_processor_state::name = "reply_processor";

namespace {

constexpr const char* component = "reply";

using self_ptr = reply_processor_actor::stateful_pointer<reply_processor_state>;
using promise = caf::typed_response_promise<send_result>;

int64_t wall_ms(const reply_processor_state& st) {
  return st.options.wall_clock.now_ms();
}

// What the send processor would refuse without a table or store, for
// replies that are not stored (stored ones it checks itself).
caf::error check_unstored(const reply_processor_state& st,
                          const send_message_request& req) {
  if (auto err = check_send_topic(req.topic))
    return err;
  if (auto err = check_properties(req.properties))
    return err;
  return check_body(req.body, st.options.max_message_size);
}

push_reply_message make_push(const reply_processor_state& st,
                             const send_message_request& req) {
  push_reply_message push;
  push.producer_group = req.producer_group;
  push.topic = req.topic;
  push.queue_id = req.queue_id;
  push.sys_flag = req.sys_flag;
  push.born_timestamp = req.born_timestamp;
  push.flag = req.flag;
  push.properties = req.properties;
  push.reconsume_times = req.reconsume_times;
  push.born_host = ipv4_to_string(req.born_ip) + ":"
                   + std::to_string(req.born_port);
  push.store_host = st.options.store_host;
  push.store_timestamp = wall_ms(st);
  set_property(push.properties, property_push_reply_time,
               std::to_string(push.store_timestamp));
  push.body = req.body;
  return push;
}

// Pushes and answers: the reply is stored (or need not be).
void push(self_ptr self, const caf::actor& channel,
          const send_message_request& req, send_result res, promise rp) {
  auto& st = self->state;
  caf::anon_send(channel, make_push(st, req));
  ++st.pushed;
  rp.deliver(std::move(res));
}

void store_and_push(self_ptr self, std::shared_ptr<send_message_request> req,
                    caf::actor channel, promise rp) {
  auto& st = self->state;
  if (!st.options.store_reply_message_enable) {
    // As RocketMQ's answer when nothing was stored: msg id "0", offset 0.
    send_result res;
    res.msg_id = "0";
    res.queue_id = req->queue_id < 0 ? 0 : req->queue_id;
    push(self, channel, *req, std::move(res), std::move(rp));
    return;
  }
  // The send processor checks, picks the queue and stores: the reply
  // takes the path of every send. It needs its own copy of the body.
  self->request(st.send, st.options.store_timeout, *req)
    .then(
      [self, req, channel, rp](send_result& res) mutable {
        ++self->state.stored;
        // The push names the queue the reply was stored in.
        req->queue_id = res.queue_id;
        push(self, channel, *req, std::move(res), std::move(rp));
      },
      [self, rp](caf::error& err) mutable {
        ++self->state.store_failures;
        log_request_failure(component, "store a reply", err);
        rp.deliver(std::move(err));
      });
}

} // namespace

nlohmann::json reply_processor_state::dump_fields() const {
  return {
    {"store_reply_message_enable", options.store_reply_message_enable},
    {"store_host", options.store_host},
    {"requests", requests},
    {"pushed", pushed},
    {"stored", stored},
    {"refused", refused},
    {"not_online", not_online},
    {"store_failures", store_failures},
  };
}

reply_processor_actor::behavior_type reply_processor(
  reply_processor_actor::stateful_pointer<reply_processor_state> self,
  reply_processor_options options, send_processor_actor send,
  client_manager_actor clients) {
  auto& st = self->state;
  st.options = std::move(options);
  st.send = std::move(send);
  st.clients = std::move(clients);
  return {
    [=](send_reply_message_request& x) -> caf::result<send_result> {
      auto& st = self->state;
      ++st.requests;
      auto req = std::make_shared<send_message_request>(std::move(x.request));
      if (req->batch) {
        ++st.refused;
        return make_error(errc::message_illegal,
                          "a reply cannot be a batch (topic " + req->topic
                            + ")");
      }
      if (!st.options.store_reply_message_enable)
        if (auto err = check_unstored(st, *req)) {
          ++st.refused;
          return err;
        }
      auto client_id
        = std::string{find_property(req->properties, property_reply_to_client)};
      if (client_id.empty()) {
        ++st.refused;
        return make_error(errc::system_error,
                          "reply message properties["
                            + std::string{property_reply_to_client}
                            + "] is null");
      }
      auto rp = self->make_response_promise<send_result>();
      self
        ->request(st.clients, st.options.table_timeout,
                  find_client_channel{client_id})
        .then(
          [self, req, rp](caf::actor& channel) mutable {
            store_and_push(self, req, std::move(channel), std::move(rp));
          },
          [self, rp, client_id](caf::error& err) mutable {
            auto& st = self->state;
            log_request_failure(component, "channel of " + client_id, err);
            if (err.category() == errc_category
                && static_cast<errc>(err.code()) == errc::system_error)
              ++st.not_online;
            // Not stored: the requester cannot get it, and the sender's
            // retries would store one copy each (docs/request-reply.md).
            rp.deliver(make_error(errc::system_error,
                                  "push reply message fail, channel of <"
                                    + client_id
                                    + "> not found: " + describe(err)));
          });
      return rp;
    },
    dump_handler(self),
  };
}

} // namespace rmq
