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

// RocketMQ keeps the progress as consumer offsets of this group.
constexpr char progress_group[] = "CID_SYS_RMQ_TRANS";

// Read whole records whatever their size (a body is at most 4 MiB).
constexpr int32_t read_bytes = 16 * 1024 * 1024;

std::string table_key(const char* topic) {
  return std::string{topic} + "@" + progress_group;
}

void save(transaction_check_service_state& st) {
  auto half = st.half_progress();
  while (!st.op_refs.empty() && st.op_refs.front().second < half)
    st.op_refs.pop_front();
  auto op = st.op_progress();
  if (half == st.saved_half && op == st.saved_op)
    return;
  nlohmann::json table = {{table_key(trans_half_topic), {{"0", half}}},
                          {table_key(trans_op_half_topic), {{"0", op}}}};
  if (auto err = json_file::save(st.options.offsets_path,
                                 {{"offsetTable", std::move(table)}})) {
    ++st.save_failures;
    RMQ_ERROR("transaction",
              "saving " << st.options.offsets_path << ": " << describe(err));
    return;
  }
  ++st.saves;
  st.saved_half = half;
  st.saved_op = op;
}

// -- the pending set ----------------------------------------------------------

void erase_entry(transaction_check_service_state& st,
                 std::map<int64_t, pending_half>::iterator i) {
  auto k = st.by_key.find(i->second.key);
  if (k != st.by_key.end() && k->second == i->first)
    st.by_key.erase(k);
  st.pending.erase(i);
}

void resolve_offset(transaction_check_service_state& st, int64_t q) {
  if (auto i = st.pending.find(q); i != st.pending.end()) {
    erase_entry(st, i);
    return;
  }
  if (q >= st.scan_half)
    st.resolved_ahead.insert(q);
}

// An op record resolves the transaction, whichever copy it names: the
// producer may answer the offsets of its send after a check copied it.
void resolve_key(transaction_check_service_state& st, const std::string& key) {
  auto k = st.by_key.find(key);
  if (k == st.by_key.end())
    return;
  auto q = k->second;
  st.by_key.erase(k);
  st.pending.erase(q);
}

std::string key_of(const record_view& rec) {
  auto key = find_property(rec.properties, property_uniq_key);
  if (key.empty())
    key = find_property(rec.properties, property_transaction_id);
  if (key.empty())
    return "@" + std::to_string(rec.phys_offset);
  return std::string{key};
}

pending_half entry_of(const transaction_check_service_state& st,
                      const record_view& rec, int64_t q) {
  pending_half e;
  e.queue_offset = q;
  e.phys_offset = rec.phys_offset;
  e.born_timestamp = rec.born_timestamp;
  e.store_timestamp = rec.store_timestamp;
  e.key = key_of(rec);
  e.producer_group
    = std::string{find_property(rec.properties, property_producer_group)};
  e.check_times = stored_check_times(rec.properties);
  e.immunity_ms = check_immunity_ms(rec.properties,
                                    st.options.transaction_timeout_ms);
  return e;
}

void add_half(transaction_check_service_state& st, const record_view& rec,
              int64_t q) {
  if (st.resolved_ahead.erase(q) > 0 || st.pending.count(q) > 0)
    return;
  auto e = entry_of(st, rec, q);
  if (auto k = st.by_key.find(e.key); k != st.by_key.end()) {
    if (k->second > q) {
      // An older copy of a transaction whose newer copy is pending.
      ++st.superseded;
      return;
    }
    ++st.superseded;
    st.pending.erase(k->second);
  }
  st.by_key[e.key] = q;
  st.pending.emplace(q, std::move(e));
}

void add_op(transaction_check_service_state& st, const record_view& rec,
            int64_t q) {
  int64_t max_ref = -1;
  if (find_property(rec.properties, property_tags) == op_remove_tag) {
    for (auto ref : parse_op_offsets(rec.body)) {
      resolve_offset(st, ref);
      max_ref = std::max(max_ref, ref);
    }
    auto key = find_property(rec.properties, property_transaction_id);
    if (!key.empty())
      resolve_key(st, std::string{key});
  } else {
    RMQ_ERROR("transaction", "op record " << q << " has no tag d: ignored");
  }
  st.op_refs.emplace_back(q, max_ref);
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
  auto& cursor = half ? st.scan_half : st.scan_op;
  (half ? st.half_max : st.op_max) = res.max_offset;
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
        while (!st.pending.empty()
               && st.pending.begin()->first < res.min_offset)
          erase_entry(st, st.pending.begin());
      cursor = res.min_offset;
      read_queue(self, half);
      return;
    case get_status::offset_overflow_badly:
      cursor = res.max_offset;
      next_phase();
      return;
    case get_status::offset_found_null:
      if (res.next_begin_offset > cursor) {
        cursor = res.next_begin_offset;
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
      add_half(st, rec, q);
    else
      add_op(st, rec, q);
    cursor = q + 1;
  }
  if (i < res.queue_offsets.size() && i == 0) {
    // A damaged record: nothing to learn from it.
    RMQ_ERROR("transaction", (half ? "half" : "op")
                               << " queue offset " << res.queue_offsets[0]
                               << " cannot be read: skipped");
    ++st.failures;
    cursor = res.queue_offsets[0] + 1;
  }
  if (cursor < res.max_offset)
    read_queue(self, half);
  else
    next_phase();
}

void read_queue(self_ptr self, bool half) {
  auto& st = self->state;
  get_message_request req;
  req.topic = half ? trans_half_topic : trans_op_half_topic;
  req.queue_id = 0;
  req.offset = half ? st.scan_half : st.scan_op;
  req.max_count = st.options.batch;
  req.max_bytes = read_bytes;
  self->request(st.dispatcher, st.options.request_timeout, std::move(req))
    .then([self, half](get_message_result& res) { on_read(self, half, res); },
          [self, half](caf::error& err) {
            auto& st = self->state;
            ++st.failures;
            log_request_failure(
              "transaction",
              half ? "reading the half queue" : "reading the op queue", err);
            // The store refuses a read that starts at a damaged record.
            if (err == errc::corrupt_data) {
              ++(half ? st.scan_half : st.scan_op);
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
    ->request(st.dispatcher, st.options.request_timeout, caf::get_atom::value,
              phys)
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
              if (auto i = st.pending.find(e.queue_offset);
                  i != st.pending.end())
                erase_entry(st, i);
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
          auto i = st.pending.find(e.queue_offset);
          if (i == st.pending.end()) {
            // Resolved while the copy was written: so is the copy.
            if (copy.queue_offset >= st.scan_half)
              st.resolved_ahead.insert(copy.queue_offset);
            next_item(self, r);
            return;
          }
          erase_entry(st, i);
          st.by_key[copy.key] = copy.queue_offset;
          st.pending.emplace(copy.queue_offset, copy);
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
    auto i = st.pending.find(q);
    if (i == st.pending.end()) {
      // Resolved since the round began.
      ++r->next;
      continue;
    }
    auto e = i->second;
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
  for (auto& [q, e] : st.pending) {
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
        auto& st = self->state;
        if (st.by_key.count(key) > 0) {
          rp.deliver(false); // a copy of it is pending
          return;
        }
        // Below the scan, a half that is not pending was resolved; above,
        // only an op record read ahead of its half says so.
        rp.deliver(q < st.scan_half ? st.pending.count(q) == 0
                                    : st.resolved_ahead.count(q) > 0);
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
  return options.wall_clock_ms ? options.wall_clock_ms()
                               : storage::wall_clock_ms();
}

int64_t transaction_check_service_state::half_progress() const {
  auto p = scan_half;
  if (!pending.empty())
    p = std::min(p, pending.begin()->first);
  return p;
}

int64_t transaction_check_service_state::op_progress() const {
  auto half = half_progress();
  // An op record naming only offsets below the half progress is not
  // needed again.
  for (auto& [op, max_ref] : op_refs)
    if (max_ref >= half)
      return op;
  return scan_op;
}

transaction_progress transaction_check_service_state::progress() const {
  transaction_progress out;
  out.half_offset = half_progress();
  out.half_max_offset = half_max;
  out.op_offset = op_progress();
  out.op_max_offset = op_max;
  out.pending = static_cast<int64_t>(pending.size());
  out.checks = checks;
  out.discarded = discarded;
  std::map<std::string, transaction_group_pending> groups;
  for (auto& kv : pending) {
    auto& g = groups[kv.second.producer_group];
    if (g.pending == 0 || kv.second.store_timestamp < g.oldest_store_timestamp)
      g.oldest_store_timestamp = kv.second.store_timestamp;
    g.producer_group = kv.second.producer_group;
    ++g.pending;
  }
  for (auto& kv : groups)
    out.groups.push_back(std::move(kv.second));
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
    {"scan_half", scan_half},
    {"scan_op", scan_op},
    {"pending", pending.size()},
    {"resolved_ahead", resolved_ahead.size()},
    {"op_refs", op_refs.size()},
    {"groups", std::move(groups)},
    {"rounds", rounds},
    {"checks", checks},
    {"discarded", discarded},
    {"no_producer", no_producer},
    {"superseded", superseded},
    {"failures", failures},
    {"saves", saves},
    {"save_failures", save_failures},
    {"scanning", scanning},
    {"rebuilt", rebuilt},
    {"checking", checking},
  };
}

std::string transaction_offsets_json_path(const std::string& store_root) {
  return store_root + "/config/transactionOffset.json";
}

transaction_check_service_actor::behavior_type
transaction_check_service(transaction_check_service_actor::stateful_pointer<
                            transaction_check_service_state>
                            self,
                          transaction_check_service_options options,
                          dispatcher_actor dispatcher,
                          commit_log_actor commit_log,
                          client_manager_actor clients) {
  auto& st = self->state;
  st.options = std::move(options);
  st.dispatcher = std::move(dispatcher);
  st.commit_log = std::move(commit_log);
  st.clients = std::move(clients);
  auto loaded = json_file::load_config(
    st.options.offsets_path, "transaction",
    "both half queues are read again from 0 to rebuild the pending set "
    "(slower start, nothing lost)",
    [&](const nlohmann::json& doc) -> caf::error {
      if (doc.is_null())
        return {};
      if (!doc.is_object())
        return make_error(errc::corrupt_data, "not a JSON object");
      auto read = [&](const char* topic) -> int64_t {
        auto t = doc.find("offsetTable");
        if (t == doc.end() || !t->is_object())
          return 0;
        auto q = t->find(table_key(topic));
        if (q == t->end() || !q->is_object())
          return 0;
        auto v = q->find("0");
        return v != q->end() && v->is_number_integer()
                 ? std::max<int64_t>(v->get<int64_t>(), 0)
                 : 0;
      };
      st.scan_half = read(trans_half_topic);
      st.scan_op = read(trans_op_half_topic);
      return {};
    });
  if (loaded.blocked) {
    // Unreadable and not movable: saving over it would lose it.
    self->quit(make_error(errc::io_error, describe(loaded.blocked)));
    return behavior(self);
  }
  st.saved_half = st.scan_half;
  st.saved_op = st.scan_op;
  scan(self, nullptr);
  arm(self);
  return behavior(self);
}

} // namespace rmq
