#include "actors/broker/processor/pull_processor.hpp"

#include <algorithm>
#include <memory>

#include <nlohmann/json.hpp>

#include "caf/typed_response_promise.hpp"

#include "messages/common/errors.hpp"
#include "messages/namesrv/route.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/common/validators.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/subscription_expression.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* pull_processor_state::name = "pull_processor";

pull_status map_get_status(get_status st, int64_t request_offset) {
  switch (st) {
    case get_status::found:
      return pull_status::found;
    case get_status::no_matched_message:
      return pull_status::no_matched_msg;
    case get_status::offset_found_null:
    case get_status::offset_overflow_one:
      return pull_status::no_new_msg;
    case get_status::no_message_in_queue:
      return request_offset == 0 ? pull_status::no_new_msg
                                 : pull_status::offset_illegal;
    case get_status::offset_overflow_badly:
    case get_status::offset_too_small:
      return pull_status::offset_illegal;
  }
  return pull_status::offset_illegal;
}

namespace {

// A group that pulls below the queue's first stored offset never
// consumed what retention or a forced cleaning (disk full) deleted: said
// once per group, queue and minimum, with the count.
void note_lost(pull_processor_state& st, const pull_message_request& req,
               const get_message_result& got) {
  if (req.queue_offset >= got.min_offset)
    return;
  auto key = std::make_tuple(req.consumer_group, req.topic, req.queue_id);
  auto& seen = st.lost_noted[key];
  if (seen >= got.min_offset)
    return;
  seen = got.min_offset;
  st.lost_messages += got.min_offset - req.queue_offset;
  RMQ_WARN("pull", "group " << req.consumer_group << " pulls " << req.topic
                            << "/" << req.queue_id << " at " << req.queue_offset
                            << ", below its first stored "
                            << "offset " << got.min_offset << ": "
                            << got.min_offset - req.queue_offset
                            << " messages were deleted (retention or a full "
                               "disk) before this group consumed them");
}

} // namespace

pull_processor_actor::behavior_type pull_processor(
  pull_processor_actor::stateful_pointer<pull_processor_state> self,
  pull_processor_config config, topic_config_table_actor topics,
  queue_service_actor queue_service, consumer_offset_table_actor offsets,
  pull_hold_service_actor hold, subscription_group_table_actor groups) {
  self->state.config = config;
  self->state.clock = &self->clock();
  topic_cache::subscribe(self, topics);
  // Answers `rp` from a read `got` of `req` (made with `get`): commits the
  // consumer's offset if asked, parks a pull that found nothing and may be
  // suspended, counts, and delivers.
  auto answer
    = [=](pull_message_request req, const get_message_request& get,
          get_message_result got,
          caf::typed_response_promise<pull_message_result> rp) mutable {
        auto& st = self->state;
        auto status = map_get_status(static_cast<get_status>(got.status),
                                     req.queue_offset);
        if (st.config.slave
            && static_cast<get_status>(got.status)
                 == get_status::offset_overflow_badly) {
          // The copy lags the master the consumer read at: wait for it.
          status = pull_status::no_new_msg;
          got.next_begin_offset = req.queue_offset;
        }
        // A pull commits its consumer's progress whatever it finds; the
        // hold service re-executes a parked pull with the flag cleared,
        // so it commits once (RocketMQ: brokerAllowSuspend).
        if ((req.sys_flag & pull_sys_flag::commit_offset) != 0 && offsets) {
          ++st.commits;
          self->send(offsets,
                     update_offset_request{req.consumer_group, req.topic,
                                           req.queue_id, req.commit_offset});
        }
        if (status == pull_status::no_new_msg
            && (req.sys_flag & pull_sys_flag::suspend) != 0 && hold) {
          ++st.suspended;
          if (!st.config.long_polling)
            req.suspend_timeout_ms = st.config.short_polling_ms;
          rp.delegate(hold, suspend_atom::value, std::move(req), get,
                      pull_processor_actor{self});
          return;
        }
        switch (status) {
          case pull_status::found:
            ++st.found;
            st.found_messages += static_cast<int64_t>(got.phys_offsets.size());
            st.get_rate.add(self->clock().now().time_since_epoch(),
                            static_cast<int64_t>(got.phys_offsets.size()));
            st.group_rates[{req.topic, req.consumer_group}].add(
              self->clock().now().time_since_epoch(),
              static_cast<int64_t>(got.phys_offsets.size()));
            break;
          case pull_status::no_new_msg:
            ++st.no_new;
            break;
          case pull_status::no_matched_msg:
            ++st.no_matched;
            break;
          case pull_status::offset_illegal:
            ++st.offset_illegal;
            note_lost(st, req, got);
            break;
        }
        pull_message_result res;
        res.status = static_cast<uint8_t>(status);
        res.next_begin_offset = got.next_begin_offset;
        res.min_offset = got.min_offset;
        res.max_offset = got.max_offset;
        res.message_count = static_cast<int32_t>(got.phys_offsets.size());
        res.buffer = std::move(got.buffer);
        if (!st.config.slave_read_enable) {
          rp.deliver(std::move(res)); // suggests the master
          return;
        }
        auto from_slave = got.suggest_pulling_from_slave;
        auto held = std::make_shared<pull_message_result>(std::move(res));
        auto suggest = [=](const subscription_group_config& g) mutable {
          held->suggest_which_broker_id
            = from_slave ? g.which_broker_when_consume_slowly : g.broker_id;
          if (held->suggest_which_broker_id != master_id)
            ++self->state.suggested_slave;
          rp.deliver(std::move(*held));
        };
        if (!groups) {
          suggest(subscription_group_config{});
          return;
        }
        // An unknown group or a slow table: RocketMQ's group defaults.
        self
          ->request(groups, st.config.request_timeout, caf::get_atom::value,
                    req.consumer_group)
          .then([=](const subscription_group_config& g) mutable { suggest(g); },
                [=](const caf::error&) mutable {
                  suggest(subscription_group_config{});
                });
      };
  // Reads the queue and answers `rp`; the topic was checked already.
  auto read = [=](pull_message_request req, std::vector<int64_t> codes,
                  caf::typed_response_promise<pull_message_result> rp) mutable {
    auto& cfg = self->state.config;
    get_message_request get;
    get.topic = req.topic;
    get.queue_id = req.queue_id;
    get.offset = req.queue_offset;
    get.max_count
      = std::max(1, std::min(req.max_msg_nums, cfg.max_transfer_count));
    get.max_bytes
      = std::max(1, std::min(req.max_msg_bytes, cfg.max_transfer_bytes));
    get.tag_codes = std::move(codes);
    auto asked = get;
    self->request(queue_service, cfg.read_timeout, std::move(get))
      .then(
        [=](get_message_result& got) mutable {
          answer(req, asked, std::move(got), rp);
        },
        [=](caf::error& err) mutable {
          log_request_failure("pull", "read of " + req.topic, err);
          rp.deliver(std::move(err));
        });
  };
  return {
    [=](pull_message_request& req, get_message_result& got) mutable {
      // The hold service's parked pull: the read it would make was made by
      // the queue service (`get` only matters for a suspension, which a
      // re-executed pull never asks for).
      auto rp = self->make_response_promise<pull_message_result>();
      answer(req, get_message_request{}, std::move(got), rp);
      return rp;
    },
    [=](pull_message_request& req) mutable -> caf::result<pull_message_result> {
      auto& st = self->state;
      ++st.pulls;
      // RocketMQ's findSubscriptionGroupConfig has no config for an
      // invalid name, so the pull is refused as of an unknown group.
      if (auto err = check_group(req.consumer_group)) {
        ++st.refused;
        return make_error(errc::subscription_group_not_exist,
                          error_detail(err));
      }
      auto codes = parse_subscription(req.subscription);
      if (!codes) {
        ++st.refused;
        return std::move(codes.error());
      }
      auto rp = self->make_response_promise<pull_message_result>();
      auto check_and_read = [=](const topic_config& tc) mutable {
        auto refuse = [&](caf::error err) {
          ++self->state.refused;
          rp.deliver(std::move(err));
        };
        if ((tc.perm & perm::read) == 0)
          return refuse(
            make_error(errc::no_permission,
                       "the topic " + req.topic + " is not readable"));
        if (req.queue_id < 0 || req.queue_id >= tc.read_queue_nums)
          return refuse(make_error(errc::invalid_parameter,
                                   "queue id " + std::to_string(req.queue_id)
                                     + " of topic " + req.topic
                                     + " is out of range, read queues: "
                                     + std::to_string(tc.read_queue_nums)));
        read(std::move(req), std::move(*codes), rp);
      };
      if (auto tc = st.topic_copy.find(req.topic)) {
        check_and_read(*tc);
        return rp;
      }
      self
        ->request(topics, st.config.request_timeout, caf::get_atom::value,
                  req.topic)
        .then([=](topic_config& tc) mutable { check_and_read(tc); },
              [=](caf::error& err) mutable {
                ++self->state.refused;
                log_request_failure("pull", "topic lookup of " + req.topic,
                                    err);
                rp.deliver(std::move(err));
              });
      return rp;
    },
    [=](const group_pull_rate_request& x) {
      auto& st = self->state;
      auto now = self->clock().now().time_since_epoch();
      double sum = 0;
      for (auto& [key, meter] : st.group_rates)
        if (key.second == x.consumer_group
            && (x.topic.empty() || key.first == x.topic))
          sum += meter.rate(now, 60);
      return sum;
    },
    [=](caf::put_atom, topic_config_set& set) {
      self->state.topic_copy.replace(set);
    },
    dump_handler(self),
  };
}

nlohmann::json pull_processor_state::dump_fields() const {
  return {
    {"max_transfer_count", config.max_transfer_count},
    {"max_transfer_bytes", config.max_transfer_bytes},
    {"long_polling", config.long_polling},
    {"pulls", pulls},
    {"refused", refused},
    {"found", found},
    {"no_new_msg", no_new},
    {"no_matched_msg", no_matched},
    {"offset_illegal", offset_illegal},
    {"lost_messages", lost_messages},
    {"suspended", suspended},
    {"commits", commits},
    {"slave_read_enable", config.slave_read_enable},
    {"suggested_slave", suggested_slave},
    {"found_messages", found_messages},
    {"get_tps", rates(get_rate, clock)},
    {"topic_cache", topic_copy.dump_fields()},
  };
}

} // namespace rmq
