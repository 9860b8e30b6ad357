#include "actors/broker/transaction/transaction_check_service.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/broker/transaction_rules.hpp"
#include "runtime/common/json_file.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/message_id.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/storage/message_store.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* transaction_check_service_state::name = "transaction_check_service";

namespace {

using self_ptr = transaction_check_service_actor::stateful_pointer<
  transaction_check_service_state>;

// Read whole records whatever their size (a body is at most 4 MiB).
constexpr int32_t read_bytes = 16 * 1024 * 1024;

void save(transaction_check_service_state& st) {
  st.halves.trim();
  auto half = st.halves.half_progress();
  auto op = st.halves.op_progress();
  if (half == st.saved_half && op == st.saved_op)
    return;
  if (auto err = json_file::save(st.options.offsets_path,
                                 to_json_document({half, op}))) {
    ++st.save_failures;
    RMQ_ERROR("transaction",
              "saving " << st.options.offsets_path << ": " << describe(err));
    return;
  }
  ++st.saves;
  st.saved_half = half;
  st.saved_op = op;
}

// -- what a record says ------------------------------------------------------------

void add_op(transaction_check_service_state& st, const record_view& rec,
            int64_t q) {
  if (find_property(rec.properties, property_tags) != op_remove_tag) {
    RMQ_ERROR("transaction", "op record " << q << " has no tag d: ignored");
    st.halves.add_op(q, {}, {});
    return;
  }
  st.halves.add_op(
    q, parse_op_offsets(rec.body),
    std::string{find_property(rec.properties, property_transaction_id)});
}

// -- scans of the half and op queues --------------------------------------------

void scan(self_ptr self, std::function<void()> then);

void scan_done(self_ptr self) {
  auto& st = self->state;
  st.scanning = false;
  st.rebuilt = true;
  save(st);
  auto callbacks = std::move(st.after_scan);
  st.after_scan.clear();
  if (st.scan_again) {
    st.scan_again = false;
    // Callbacks wait for the scan that sees what arrived meanwhile.
    for (auto& f : callbacks)
      st.after_scan.push_back(std::move(f));
    scan(self, nullptr);
    return;
  }
  for (auto& f : callbacks)
    f();
}

void read_queue(self_ptr self, bool half);

void on_read(self_ptr self, bool half, get_message_result& res) {
  auto& st = self->state;
  auto& h = st.halves;
  auto cursor = half ? h.half_cursor() : h.op_cursor();
  (half ? st.half_max : st.op_max) = res.max_offset;
  auto jump = [&h, half](int64_t to) {
    if (half)
      h.half_jump_to(to);
    else
      h.op_jump_to(to);
  };
  auto next_phase = [self, half] {
    if (half)
      read_queue(self, false);
    else
      scan_done(self);
  };
  switch (static_cast<get_status>(res.status)) {
    case get_status::found:
      break;
    case get_status::offset_too_small:
      // Retention removed them: what was pending there is gone.
      RMQ_ERROR("transaction", (half ? "half" : "op")
                                 << " queue offset " << cursor
                                 << " is below the queue's minimum, moved to "
                                 << res.min_offset);
      if (half)
        h.half_queue_starts_at(res.min_offset);
      else
        h.op_queue_starts_at(res.min_offset);
      read_queue(self, half);
      return;
    case get_status::offset_overflow_badly:
      jump(res.max_offset);
      next_phase();
      return;
    case get_status::offset_found_null:
      if (res.next_begin_offset > cursor) {
        jump(res.next_begin_offset);
        read_queue(self, half);
        return;
      }
      next_phase();
      return;
    default:
      next_phase();
      return;
  }
  size_t pos = 0;
  size_t i = 0;
  for (; i < res.queue_offsets.size(); ++i) {
    record_view rec;
    if (pos >= res.buffer.size()
        || decode_record(res.buffer.data() + pos, res.buffer.size() - pos, rec,
                         true)
             != decode_status::ok)
      break;
    pos += static_cast<size_t>(rec.total_size);
    auto q = res.queue_offsets[i];
    if (half)
      h.add_half(pending_half_of(rec, q, st.options.transaction_timeout_ms));
    else
      add_op(st, rec, q);
  }
  if (i < res.queue_offsets.size() && i == 0) {
    // A damaged record: nothing to learn from it.
    RMQ_ERROR("transaction", (half ? "half" : "op")
                               << " queue offset " << res.queue_offsets[0]
                               << " cannot be read: skipped");
    ++st.failures;
    if (half)
      h.skip_half(res.queue_offsets[0]);
    else
      h.skip_op(res.queue_offsets[0]);
  }
  if ((half ? h.half_cursor() : h.op_cursor()) < res.max_offset)
    read_queue(self, half);
  else
    next_phase();
}

void read_queue(self_ptr self, bool half) {
  auto& st = self->state;
  get_message_request req;
  req.topic = half ? trans_half_topic : trans_op_half_topic;
  req.queue_id = 0;
  req.offset = half ? st.halves.half_cursor() : st.halves.op_cursor();
  req.max_count = st.options.batch;
  req.max_bytes = read_bytes;
  self->request(st.queue_service, st.options.request_timeout, std::move(req))
    .then([self, half](get_message_result& res) { on_read(self, half, res); },
          [self, half](caf::error& err) {
            auto& st = self->state;
            ++st.failures;
            log_request_failure(
              "transaction",
              half ? "reading the half queue" : "reading the op queue", err);
            // The store refuses a read that starts at a damaged record.
            if (err == errc::corrupt_data) {
              if (half)
                st.halves.skip_half(st.halves.half_cursor());
              else
                st.halves.skip_op(st.halves.op_cursor());
              read_queue(self, half);
              return;
            }
            scan_done(self);
          });
}

void scan(self_ptr self, std::function<void()> then) {
  auto& st = self->state;
  if (then)
    st.after_scan.push_back(std::move(then));
  if (st.scanning) {
    st.scan_again = true;
    return;
  }
  st.scanning = true;
  read_queue(self, true);
}

// -- check rounds ---------------------------------------------------------------

enum class action { check, discard };

struct round {
  std::vector<std::pair<int64_t, action>> items;
  std::map<std::string, std::vector<caf::actor>> channels;
  size_t next = 0;
};

using round_ptr = std::shared_ptr<round>;

void arm(self_ptr self) {
  auto& st = self->state;
  ++st.timer;
  self->delayed_send(self, st.options.check_interval, tick_atom::value,
                     st.timer);
}

void end_round(self_ptr self) {
  auto& st = self->state;
  st.checking = false;
  ++st.rounds;
  save(st);
  auto progress = st.progress();
  for (auto& rp : st.waiters)
    rp.deliver(progress);
  st.waiters.clear();
  arm(self);
}

void step(self_ptr self, round_ptr r);

void next_item(self_ptr self, round_ptr r) {
  ++r->next;
  step(self, r);
}

void put_one(self_ptr self, store_message msg, const char* what,
             std::function<void(put_result&)> then,
             std::function<void()> failed) {
  auto& st = self->state;
  std::vector<store_message> batch;
  batch.push_back(std::move(msg));
  self
    ->request(st.commit_log, st.options.request_timeout, caf::put_atom::value,
              std::move(batch))
    .then(
      [self, what, then, failed](std::vector<put_result>& res) {
        if (res.size() != 1 || !is_stored(res.front())) {
          ++self->state.failures;
          if (!res.empty())
            log_request_failure("transaction", what, res.front().error);
          failed();
          return;
        }
        then(res.front());
      },
      [self, what, failed](caf::error& err) {
        ++self->state.failures;
        log_request_failure("transaction", what, err);
        failed();
      });
}

// Reads the record at `phys` and hands it over decoded (the view points
// into the shared string).
void read_record(
  self_ptr self, int64_t phys,
  std::function<void(std::shared_ptr<std::string>, const record_view&)> then,
  std::function<void()> failed) {
  auto& st = self->state;
  self
    ->request(st.queue_service, st.options.request_timeout,
              caf::get_atom::value, phys)
    .then(
      [self, phys, then, failed](std::string& raw) {
        auto buf = std::make_shared<std::string>(std::move(raw));
        record_view rec;
        if (decode_record(buf->data(), buf->size(), rec, true)
            != decode_status::ok) {
          ++self->state.failures;
          RMQ_ERROR("transaction",
                    "the half message at " << phys << " cannot be read");
          failed();
          return;
        }
        then(buf, rec);
      },
      [self, failed](caf::error& err) {
        ++self->state.failures;
        log_request_failure("transaction", "reading a half message", err);
        failed();
      });
}

void discard(self_ptr self, round_ptr r, pending_half e) {
  auto skip = [self, r] { next_item(self, r); };
  read_record(
    self, e.phys_offset,
    [self, r, e, skip](std::shared_ptr<std::string>, const record_view& rec) {
      RMQ_ERROR("transaction", "half message "
                                 << e.key << " of " << e.producer_group
                                 << " was checked " << e.check_times
                                 << " times: moved to "
                                 << trans_check_max_time_topic);
      put_one(
        self, to_check_max_time(rec), "discarding a half message",
        [self, r, e, skip](put_result&) {
          auto& st = self->state;
          put_one(
            self, make_op_message(e.queue_offset, e.key, st.now_ms()),
            "writing the discard's op record",
            [self, r, e](put_result&) {
              auto& st = self->state;
              ++st.discarded;
              st.halves.erase(e.queue_offset);
              next_item(self, r);
            },
            skip);
        },
        skip);
    },
    skip);
}

void send_check(self_ptr self, const pending_half& copy,
                const std::vector<caf::actor>& channels, std::string record,
                std::string transaction_id) {
  auto& st = self->state;
  check_transaction_state chk;
  chk.producer_group = copy.producer_group;
  chk.broker_name = st.options.broker_name;
  chk.broker_addr = st.options.broker_addr;
  chk.tran_state_table_offset = copy.queue_offset;
  chk.commit_log_offset = copy.phys_offset;
  chk.msg_id = copy.key;
  chk.transaction_id = std::move(transaction_id);
  chk.offset_msg_id = encode_offset_msg_id(
    st.options.store_ip, st.options.store_port, copy.phys_offset);
  chk.record = std::move(record);
  // The most recently heard producer (getAvailableChannel).
  caf::anon_send(channels.front(), std::move(chk));
  ++st.checks;
}

void check(self_ptr self, round_ptr r, pending_half e,
           const std::vector<caf::actor>& channels) {
  auto skip = [self, r] { next_item(self, r); };
  read_record(
    self, e.phys_offset,
    [self, r, e, channels, skip](std::shared_ptr<std::string>,
                                 const record_view& rec) {
      // RocketMQ's needDiscard: the first check writes 1.
      auto times = e.check_times + 1;
      put_one(
        self, half_copy(rec, times), "re-putting a checked half message",
        [self, r, e, channels, times](put_result& res) {
          auto& st = self->state;
          auto copy = e;
          copy.queue_offset = res.queue_offset;
          copy.phys_offset = res.phys_offset;
          copy.store_timestamp = res.store_timestamp;
          copy.check_times = times;
          if (!st.halves.replace(e.queue_offset, copy)) {
            // Resolved while the copy was written: so is the copy.
            next_item(self, r);
            return;
          }
          // The check carries the copy as stored.
          read_record(
            self, copy.phys_offset,
            [self, r, copy, channels](std::shared_ptr<std::string> raw,
                                      const record_view& rec) {
              auto tid = find_property(rec.properties, property_transaction_id);
              send_check(self, copy, channels, *raw,
                         std::string{tid.empty() ? copy.key : tid});
              next_item(self, r);
            },
            [self, r] { next_item(self, r); });
        },
        skip);
    },
    skip);
}

void step(self_ptr self, round_ptr r) {
  auto& st = self->state;
  while (r->next < r->items.size()) {
    auto [q, what] = r->items[r->next];
    auto found = st.halves.find(q);
    if (found == nullptr) {
      // Resolved since the round began.
      ++r->next;
      continue;
    }
    auto e = *found;
    if (what == action::discard) {
      discard(self, r, e);
      return;
    }
    auto& channels = r->channels[e.producer_group];
    if (channels.empty()) {
      // No producer online: nothing is counted (docs/transactions.md).
      ++st.no_producer;
      ++r->next;
      continue;
    }
    check(self, r, e, channels);
    return;
  }
  end_round(self);
}

// Picks what to check or discard, asks for the groups' channels, then
// works through the items one at a time.
void plan(self_ptr self) {
  auto& st = self->state;
  auto r = std::make_shared<round>();
  auto now = st.now_ms();
  for (auto& [q, e] : st.halves.entries()) {
    if (st.options.slave)
      break;
    auto age = now - e.born_timestamp;
    if (e.check_times >= st.options.check_max
        || age > st.options.file_reserved_ms) {
      r->items.emplace_back(q, action::discard);
      continue;
    }
    // Spared while young; a born time in the future (a skewed producer
    // clock) is checked, as RocketMQ does.
    if (e.store_timestamp >= now || (age >= 0 && age <= e.immunity_ms))
      continue;
    r->items.emplace_back(q, action::check);
    r->channels.emplace(e.producer_group, std::vector<caf::actor>{});
  }
  if (r->channels.empty()) {
    step(self, r);
    return;
  }
  auto left = std::make_shared<size_t>(r->channels.size());
  for (auto& kv : r->channels) {
    auto group = kv.first;
    self
      ->request(st.clients, st.options.request_timeout,
                find_producer_channels{group})
      .then(
        [self, r, left, group](std::vector<caf::actor>& hdls) {
          r->channels[group] = std::move(hdls);
          if (--*left == 0)
            step(self, r);
        },
        [self, r, left](caf::error& err) {
          ++self->state.failures;
          log_request_failure("transaction", "finding producer channels", err);
          if (--*left == 0)
            step(self, r);
        });
  }
}

void start_round(self_ptr self) {
  auto& st = self->state;
  if (st.checking)
    return;
  st.checking = true;
  ++st.timer; // a pending wake-up is stale now
  scan(self, [self] { plan(self); });
}

transaction_check_service_actor::behavior_type behavior(self_ptr self) {
  return {
    [self](caf::get_atom) -> caf::result<transaction_progress> {
      if (self->state.rebuilt)
        return self->state.progress();
      // Still reading the queues after the start: the set is not whole.
      auto rp = self->make_response_promise<transaction_progress>();
      self->state.after_scan.push_back(
        [self, rp]() mutable { rp.deliver(self->state.progress()); });
      return rp;
    },
    [self](check_atom) -> caf::result<transaction_progress> {
      auto rp = self->make_response_promise<transaction_progress>();
      self->state.waiters.push_back(rp);
      start_round(self);
      return rp;
    },
    [self](arrival_atom, int64_t) { scan(self, nullptr); },
    [self](resolved_atom, std::string& key, int64_t q) -> caf::result<bool> {
      auto rp = self->make_response_promise<bool>();
      // Read what arrived first: the op record may be newer than the scan.
      scan(self, [self, rp, key, q]() mutable {
        rp.deliver(self->state.halves.resolved(key, q));
      });
      return rp;
    },
    [self](tick_atom, uint64_t gen) {
      if (gen == self->state.timer)
        start_round(self);
    },
    dump_handler(self),
  };
}

} // namespace

int64_t transaction_check_service_state::now_ms() const {
  return options.wall_clock.now_ms();
}

transaction_progress transaction_check_service_state::progress() const {
  transaction_progress out;
  out.half_offset = halves.half_progress();
  out.half_max_offset = half_max;
  out.op_offset = halves.op_progress();
  out.op_max_offset = op_max;
  out.pending = static_cast<int64_t>(halves.size());
  out.checks = checks;
  out.discarded = discarded;
  out.groups = halves.groups();
  return out;
}

nlohmann::json transaction_check_service_state::dump_fields() const {
  nlohmann::json groups = nlohmann::json::array();
  auto p = progress();
  for (auto& g : p.groups)
    groups.push_back(g);
  return {
    {"check_interval_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                            options.check_interval)
                            .count()},
    {"transaction_timeout_ms", options.transaction_timeout_ms},
    {"check_max", options.check_max},
    {"half_offset", p.half_offset},
    {"half_max_offset", half_max},
    {"op_offset", p.op_offset},
    {"op_max_offset", op_max},
    {"scan_half", halves.half_cursor()},
    {"scan_op", halves.op_cursor()},
    {"pending", halves.size()},
    {"resolved_ahead", halves.resolved_ahead()},
    {"op_refs", halves.op_refs()},
    {"groups", std::move(groups)},
    {"rounds", rounds},
    {"checks", checks},
    {"discarded", discarded},
    {"no_producer", no_producer},
    {"superseded", halves.superseded()},
    {"failures", failures},
    {"saves", saves},
    {"save_failures", save_failures},
    {"scanning", scanning},
    {"rebuilt", rebuilt},
    {"checking", checking},
  };
}

transaction_check_service_actor::behavior_type
transaction_check_service(transaction_check_service_actor::stateful_pointer<
                            transaction_check_service_state>
                            self,
                          transaction_check_service_options options,
                          queue_service_actor queue_service,
                          commit_log_writer_actor commit_log,
                          client_manager_actor clients) {
  auto& st = self->state;
  st.options = std::move(options);
  st.queue_service = std::move(queue_service);
  st.commit_log = std::move(commit_log);
  st.clients = std::move(clients);
  auto loaded = json_file::load_config(
    st.options.offsets_path, "transaction",
    "both half queues are read again from 0 to rebuild the pending set "
    "(slower start, nothing lost)",
    [&](const nlohmann::json& doc) -> caf::error {
      transaction_offsets read;
      if (auto err = from_json_document(doc, read))
        return err;
      st.halves.start_at(read.half, read.op);
      return {};
    });
  if (loaded.blocked) {
    // Unreadable and not movable: saving over it would lose it.
    self->quit(make_error(errc::io_error, describe(loaded.blocked)));
    return behavior(self);
  }
  st.saved_half = st.halves.half_cursor();
  st.saved_op = st.halves.op_cursor();
  scan(self, nullptr);
  arm(self);
  return behavior(self);
}

} // namespace rmq
