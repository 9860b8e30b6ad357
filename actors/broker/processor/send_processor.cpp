#include "actors/broker/processor/send_processor.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/broker/transaction_rules.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/message_batch.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/message/send_checks.hpp"
#include "runtime/message/timer_message.hpp"
#include "runtime/storage/message_store.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* send_processor_state::name = "send_processor";

namespace {

using self_ptr = network_pointer<send_processor_actor, send_processor_state>;
using promise = caf::typed_response_promise<send_result>;

constexpr std::string_view retry_topic_prefix = "%RETRY%";

// The checked messages of one send, before the topic lookup.
struct checked_send {
  send_message_request req;
  std::vector<batch_entry> entries;
  /// A transaction's half message (stored into RMQ_SYS_TRANS_HALF_TOPIC).
  bool half = false;
};

// RocketMQ 5's timer properties: a delay the half topic cannot keep.
bool has_timer(std::string_view props) {
  for (auto key : {"TIMER_DELIVER_MS", "TIMER_DELAY_SEC", "TIMER_DELAY_MS"})
    if (!find_property(props, key).empty())
      return true;
  return false;
}

// SendMessageProcessor's transaction checks of a single send; sets
// `out.half`.
caf::error check_half(const send_processor_state& st,
                      const send_message_request& req, int32_t level,
                      checked_send& out) {
  if (!is_half_message(req.properties, req.reconsume_times, level))
    return caf::none;
  if (st.options.reject_transaction_message)
    return make_error(errc::no_permission,
                      "the broker[" + st.options.broker_name
                        + "] sending transaction message is forbidden");
  // The half topic would hold it past its delay, and the commit would
  // bypass the schedule: refused (RocketMQ's producer clears DELAY).
  if (level > 0 || has_timer(req.properties))
    return make_error(errc::message_illegal,
                      "transaction message does not support delay");
  out.half = true;
  return caf::none;
}

// The keys a batch entry is checked for, picked up in the validity
// check's walk (six scans of every entry's properties before): the first
// value of each, as find_property gives it.
struct entry_keys {
  // DELAY, TRAN_MSG, then the timer properties.
  static constexpr size_t count = 2 + timer_properties.size();
  std::array<std::string_view, count> values{};
  std::array<bool, count> seen{};

  static std::string_view name(size_t i) {
    return i == 0   ? property_delay
           : i == 1 ? property_tran_msg
                    : timer_properties[i - 2];
  }

  std::string_view delay() const {
    return values[0];
  }

  /// As has_tran_msg.
  bool tran_msg() const {
    return values[1] == "true";
  }

  /// As has_timer_property.
  bool timed() const {
    for (size_t i = 2; i < count; ++i)
      if (!values[i].empty())
        return true;
    return false;
  }

  auto collector() {
    return [this](std::string_view key, std::string_view value) {
      for (size_t i = 0; i < count; ++i)
        if (!seen[i] && key == name(i)) {
          seen[i] = true;
          values[i] = value;
        }
    };
  }
};

// Encoded size of one `key` = `value` pair.
size_t pair_size(std::string_view key, std::string_view value) {
  return key.size() + value.size() + 2;
}

// What to_store_messages stamps on a message's properties at most:
// UNIQ_KEY and CLUSTER (a batch's own properties come on top).
size_t stamps_size(const send_processor_state& st) {
  return std::string_view{property_uniq_key}.size() + msg_id_size + 2
         + pair_size(property_cluster, st.options.cluster_name);
}

// Everything that needs no table or store; fills `out.entries`.
caf::error check_send(const send_processor_state& st, send_message_request& req,
                      checked_send& out) {
  auto& opts = st.options;
  if (opts.slave)
    return make_error(errc::service_not_available,
                      "message store is slave mode, so putMessage is "
                      "forbidden");
  if ((opts.broker_permission & perm::write) == 0)
    return make_error(errc::no_permission,
                      "the broker[" + opts.broker_name
                        + "] sending message is forbidden");
  if (auto err = check_send_topic(req.topic))
    return err;
  if (auto err = check_properties(req.properties))
    return err;
  if (!req.batch) {
    if (auto err = check_body(req.body, opts.max_message_size))
      return err;
    auto level = delay_level(req.properties, opts.max_delay_level);
    if (!level)
      return std::move(level.error());
    if (auto err = check_half(st, req, *level, out))
      return err;
    out.entries.push_back({req.flag, std::move(req.body), req.properties});
  } else {
    if (req.topic.compare(0, retry_topic_prefix.size(), retry_topic_prefix)
        == 0)
      return make_error(errc::message_illegal,
                        "batch request does not support retry group "
                          + req.topic);
    // CommitLog#asyncPutMessages refuses a transaction type; TRAN_MSG in
    // the batch's or an entry's properties is refused too.
    if ((req.sys_flag & sys_flag::transaction_mask) != 0
        || has_tran_msg(req.properties))
      return make_error(errc::message_illegal,
                        "batch message does not support transaction");
    if (req.body.size() > opts.max_message_size)
      return make_error(errc::message_illegal,
                        "the batch body size " + std::to_string(req.body.size())
                          + " exceeds the maximum "
                          + std::to_string(opts.max_message_size));
    auto entries = decode_batch(req.body,
                                req.properties.size() + stamps_size(st));
    if (!entries)
      return std::move(entries.error());
    for (size_t i = 0; i < entries->size(); ++i) {
      auto& e = (*entries)[i];
      auto at = [i](const caf::error& err) {
        return make_error(static_cast<errc>(err.code()),
                          "batch entry " + std::to_string(i) + ": "
                            + error_detail(err));
      };
      if (auto err = check_body(e.body, opts.max_message_size))
        return at(err);
      entry_keys keys;
      if (auto err = check_properties(e.properties, keys.collector()))
        return at(err);
      auto level = parse_delay_level(keys.delay(), opts.max_delay_level);
      if (!level)
        return at(level.error());
      if (*level > 0)
        return make_error(errc::message_illegal,
                          "batch entry " + std::to_string(i)
                            + ": batch messages do not support delay");
      if (keys.tran_msg())
        return make_error(errc::message_illegal,
                          "batch entry " + std::to_string(i)
                            + ": batch message does not support transaction");
      if (keys.timed())
        return make_error(errc::message_illegal,
                          "batch entry " + std::to_string(i)
                            + ": batch messages do not support timers");
    }
    out.entries = std::move(*entries);
  }
  req.body.clear();
  out.req = std::move(req);
  return caf::none;
}

// Picks the queue (RocketMQ randomQueueId for queue id < 0) and checks
// the topic's permission and the queue id range.
caf::expected<int32_t> pick_queue(send_processor_state& st,
                                  const topic_config& tc, int32_t queue_id) {
  if ((tc.perm & perm::write) == 0)
    return make_error(errc::no_permission,
                      "the topic[" + tc.topic_name
                        + "] sending message is forbidden");
  auto limit = std::max(tc.read_queue_nums, tc.write_queue_nums);
  if (queue_id >= limit)
    return make_error(errc::invalid_parameter,
                      "request queueId[" + std::to_string(queue_id)
                        + "] is illegal, topic " + tc.topic_name + " has "
                        + std::to_string(limit) + " queues");
  if (queue_id >= 0)
    return queue_id;
  if (tc.write_queue_nums <= 0)
    return make_error(errc::no_permission,
                      "the topic[" + tc.topic_name + "] has no write queue");
  std::uniform_int_distribution<int32_t> dist{0, tc.write_queue_nums - 1};
  return dist(st.rng);
}

// The UNIQ_KEYs of one send, joined with commas as the answer carries
// them (RocketMQ's batch msgId): one string for the whole send.
struct send_ids {
  std::string joined;
  size_t count = 0;

  size_t size() const {
    return count;
  }
};

// Whether `key` followed by the name/value separator occurs anywhere: a
// pair of it may be there.
bool may_have_property(std::string_view props, std::string_view key) {
  for (auto at = props.find(key); at != std::string_view::npos;
       at = props.find(key, at + 1))
    if (at + key.size() < props.size()
        && props[at + key.size()] == name_value_separator)
      return true;
  return false;
}

// Turns checked entries into store messages: a missing UNIQ_KEY made
// here, the batch's own properties added where an entry lacks them (as
// RocketMQ's batch encoder appends them), CLUSTER stamped on each; the
// ids go to `ids`. Moves the bodies out of `cs` (it is used once). Each
// message's properties get their final size in one allocation.
std::vector<store_message> to_store_messages(send_processor_state& st,
                                             checked_send& cs, int32_t queue_id,
                                             send_ids& ids) {
  auto& req = cs.req;
  auto n = cs.entries.size();
  std::vector<store_message> result;
  result.reserve(n);
  ids.joined.reserve(n * (msg_id_size + 1));
  property_list header;
  size_t header_size = 0;
  if (req.batch && !req.properties.empty())
    if (auto decoded = decode_properties(req.properties)) {
      header = std::move(*decoded);
      for (auto& [k, v] : header)
        header_size += pair_size(k, v);
    }
  auto& cluster = st.options.cluster_name;
  auto stamps = stamps_size(st);
  // The wall clock, read once per send for the ids made here.
  int64_t now = -1;
  for (auto& e : cs.entries) {
    auto& msg = result.emplace_back();
    msg.topic = req.topic;
    msg.queue_id = queue_id;
    msg.flag = e.flag;
    msg.sys_flag = req.sys_flag;
    msg.born_timestamp = req.born_timestamp;
    msg.born_ip = req.born_ip;
    msg.born_port = req.born_port;
    msg.reconsume_times = req.reconsume_times;
    msg.body = std::move(e.body);
    msg.body_crc = e.body_crc;
    auto& props = msg.properties;
    props = std::move(e.properties);
    props.reserve(props.size() + header_size + stamps);
    for (auto& [k, v] : header)
      if (find_property(props, k).empty())
        append_property(props, k, v);
    auto uniq = find_property(props, property_uniq_key);
    if (uniq.empty()) {
      if (now < 0)
        now = st.options.wall_clock.now_ms();
      props.append(property_uniq_key);
      props += name_value_separator;
      auto at = props.size();
      props.append(msg_id_size, '0');
      st.ids.next(now, props.data() + at);
      props += property_separator;
      uniq = std::string_view{props}.substr(at, msg_id_size);
      ++st.made_ids;
    }
    if (ids.count++ > 0)
      ids.joined += ',';
    ids.joined.append(uniq);
    // set_property rebuilds the string; with no CLUSTER pair yet an
    // append does the same.
    if (may_have_property(props, property_cluster))
      set_property(props, property_cluster, cluster);
    else
      append_property(props, property_cluster, cluster);
  }
  return result;
}

// Builds the answer from the store's results and the messages' UNIQ_KEYs,
// or the error of the first message that was not stored.
caf::expected<send_result> to_result(send_processor_state& st, send_ids& ids,
                                     const std::vector<put_result>& res,
                                     int32_t queue_id) {
  if (res.size() != ids.size())
    return make_error(errc::system_error,
                      "the store answered " + std::to_string(res.size())
                        + " results for " + std::to_string(ids.size())
                        + " messages");
  send_result out;
  auto status = send_status::send_ok;
  auto n = res.size();
  out.queue_offsets.reserve(n);
  // The joined offsetMsgIds: each id written in place, commas between.
  if (n > 0)
    out.offset_msg_id.assign(n * (msg_id_size + 1) - 1, ',');
  for (size_t i = 0; i < n; ++i) {
    auto& r = res[i];
    if (r.error) {
      // Stored, but not as durable as asked: still a send_result.
      auto stored = r.phys_offset >= 0 && r.error.category() == errc_category;
      auto code = static_cast<errc>(r.error.code());
      if (stored && code == errc::flush_disk_timeout)
        status = send_status::flush_disk_timeout;
      else if (stored && code == errc::flush_slave_timeout)
        status = send_status::flush_slave_timeout;
      else if (stored && code == errc::slave_not_available)
        status = send_status::slave_not_available;
      else
        return to_send_error(r.error);
    }
    write_offset_msg_id(out.offset_msg_id.data() + i * (msg_id_size + 1),
                        st.options.store_ip, st.options.store_port,
                        r.phys_offset);
    out.queue_offsets.push_back(r.queue_offset);
  }
  out.msg_id = std::move(ids.joined);
  out.status = static_cast<uint8_t>(status);
  // The queue asked for, also for a delayed message stored in the
  // schedule topic; the offset is the stored one (RocketMQ's response).
  out.queue_id = queue_id;
  out.queue_offset = out.queue_offsets.empty() ? 0 : out.queue_offsets.front();
  if (status == send_status::flush_disk_timeout)
    ++st.flush_timeouts;
  return out;
}

void fail(self_ptr self, promise& rp, const char* what, const caf::error& err) {
  auto& st = self->state;
  log_request_failure("send", what, err);
  auto mapped = to_send_error(err);
  if (mapped == errc::system_busy)
    ++st.busy;
  rp.deliver(std::move(mapped));
}

void store(self_ptr self, std::shared_ptr<checked_send> cs, int32_t queue_id,
           promise rp) {
  auto& st = self->state;
  auto ids = std::make_shared<send_ids>();
  auto msgs = to_store_messages(st, *cs, queue_id, *ids);
  // A timed message waits in the timer topic (docs/timer.md); its deliver
  // time is reckoned from the store's clock, as the store stamps it.
  if (!cs->req.batch && msgs.size() == 1) {
    auto now = st.options.wall_clock.now_ms();
    auto slot = to_timer(msgs.front(), now, st.options.timer);
    if (!slot) {
      ++st.refused;
      rp.deliver(std::move(slot.error()));
      return;
    }
    if (*slot > 0)
      ++st.timed;
  }
  // A delayed message waits in SCHEDULE_TOPIC_XXXX (batches refuse DELAY,
  // and its level was checked).
  if (cs->half && msgs.size() == 1) {
    // The send result keeps the asked queue and gets the half queue's
    // offset, which the producer ends the transaction with.
    to_half(msgs.front());
    ++st.half_messages;
  } else if (!cs->req.batch && msgs.size() == 1) {
    if (auto level = to_schedule(msgs.front(), st.options.max_delay_level);
        level && *level > 0)
      ++st.scheduled;
  }
  // The messages go to the writer without a copy; the answer needs only
  // their ids (taken above: the timer, schedule and half rewrites keep
  // UNIQ_KEY).
  self
    ->request(st.commit_log, st.options.store_timeout, caf::put_atom::value,
              std::move(msgs))
    .then(
      [self, ids, queue_id, rp](std::vector<put_result>& res) mutable {
        auto& st = self->state;
        auto out = to_result(st, *ids, res, queue_id);
        if (!out) {
          ++st.store_failures;
          fail(self, rp, "append", out.error());
          return;
        }
        st.stored_messages += static_cast<int64_t>(ids->size());
        st.put_rate.add(self->clock().now().time_since_epoch(),
                        static_cast<int64_t>(ids->size()));
        rp.deliver(std::move(*out));
      },
      [self, rp](caf::error& err) mutable {
        ++self->state.store_failures;
        fail(self, rp, "append", err);
      });
}

} // namespace

caf::error to_send_error(const caf::error& err) {
  if (!err)
    return err;
  auto detail = err.category() == errc_category ? error_detail(err)
                                                : describe(err);
  if (err.category() != errc_category)
    return make_error(errc::system_error, std::move(detail));
  switch (static_cast<errc>(err.code())) {
    case errc::message_illegal:
    case errc::properties_size_exceeded:
      return make_error(errc::message_illegal, std::move(detail));
    case errc::service_not_available:
    case errc::disk_full:
    case errc::not_ready:
      return make_error(errc::service_not_available, std::move(detail));
    case errc::system_busy:
    case errc::queue_full:
      return make_error(errc::system_busy, std::move(detail));
    case errc::topic_not_exist:
    case errc::no_permission:
    case errc::invalid_parameter:
    case errc::system_error:
      return err;
    default:
      return make_error(errc::system_error, describe(err));
  }
}

nlohmann::json send_processor_state::dump_fields() const {
  return {
    {"cluster_name", options.cluster_name},
    {"broker_name", options.broker_name},
    {"broker_permission", options.broker_permission},
    {"slave", options.slave},
    {"store_host", ipv4_to_string(options.store_ip) + ":"
                     + std::to_string(options.store_port)},
    {"max_message_size", options.max_message_size},
    {"max_delay_level", options.max_delay_level},
    {"requests", requests},
    {"batches", batches},
    {"stored_messages", stored_messages},
    {"refused", refused},
    {"store_failures", store_failures},
    {"busy", busy},
    {"flush_timeouts", flush_timeouts},
    {"made_ids", made_ids},
    {"put_tps", rates(put_rate, clock)},
    {"scheduled", scheduled},
    {"reject_transaction_message", options.reject_transaction_message},
    {"half_messages", half_messages},
    {"timed", timed},
    {"timer_max_delay_sec", options.timer.max_delay_sec},
    {"timer_precision_ms", options.timer.precision_ms},
    {"topic_cache", topic_copy.dump_fields()},
  };
}

send_processor_actor::behavior_type
send_processor(network_pointer<send_processor_actor, send_processor_state> self,
               send_processor_options options, topic_config_table_actor topics,
               commit_log_writer_actor commit_log) {
  auto& st = self->state;
  st.clock = &self->clock();
  st.options = std::move(options);
  st.topics = std::move(topics);
  st.commit_log = std::move(commit_log);
  auto seed = st.options.seed != 0 ? st.options.seed
                                   : (uint64_t{std::random_device{}()} << 32)
                                       | std::random_device{}();
  st.rng.seed(seed);
  st.ids = uniq_key_generator{st.options.store_ip, st.options.pid,
                              st.options.id_hash};
  topic_cache::subscribe(self, st.topics);
  return {
    [=](send_message_request& req) -> caf::result<send_result> {
      auto& st = self->state;
      ++st.requests;
      if (req.batch)
        ++st.batches;
      auto cs = std::make_shared<checked_send>();
      if (auto err = check_send(st, req, *cs)) {
        ++st.refused;
        return err;
      }
      if (auto tc = st.topic_copy.find(cs->req.topic)) {
        auto queue_id = pick_queue(st, *tc, cs->req.queue_id);
        if (!queue_id) {
          ++st.refused;
          return std::move(queue_id.error());
        }
        auto rp = self->make_response_promise<send_result>();
        store(self, cs, *queue_id, rp);
        return rp;
      }
      auto rp = self->make_response_promise<send_result>();
      topic_for_send_request lookup{cs->req.topic, cs->req.default_topic,
                                    cs->req.default_queue_nums, 0};
      self->request(st.topics, st.options.table_timeout, std::move(lookup))
        .then(
          [self, cs, rp](topic_config& tc) mutable {
            auto& st = self->state;
            auto queue_id = pick_queue(st, tc, cs->req.queue_id);
            if (!queue_id) {
              ++st.refused;
              rp.deliver(std::move(queue_id.error()));
              return;
            }
            store(self, cs, *queue_id, rp);
          },
          [self, rp](caf::error& err) mutable {
            ++self->state.refused;
            fail(self, rp, "topic lookup", err);
          });
      return rp;
    },
    [=](caf::put_atom, topic_config_set& set) {
      self->state.topic_copy.replace(set);
    },
    [=](broker_perm_atom, int32_t value) -> caf::result<int32_t> {
      if (!perm::is_valid(value))
        return make_error(errc::invalid_parameter, "broker permission "
                                                     + std::to_string(value)
                                                     + " is not in 0..7");
      return std::exchange(self->state.options.broker_permission, value);
    },
    dump_handler(self),
  };
}

} // namespace rmq
