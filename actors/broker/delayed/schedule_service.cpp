#include "actors/broker/delayed/schedule_service.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/exit_reason.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/storage/message_store.hpp"

#include "actors/broker/delayed/due_message_pass.hpp"
#include "actors/common/dump.hpp"

namespace rmq {

const char* schedule_service_state::name = "schedule_service";

namespace {

using self_ptr
  = schedule_service_actor::stateful_pointer<schedule_service_state>;

// Read whole records whatever their size (a body is at most 4 MiB).
constexpr int32_t read_bytes = 16 * 1024 * 1024;

// One record of a pass, in queue order.
struct item : due_message {
  int64_t queue_offset = 0;
};

// The due records of one pass, and whether more records follow them.
struct pass {
  size_t level_index = 0;
  std::vector<item> items;
  bool full = false;
  /// Deliver time of the first record read that was not due yet, or -1.
  int64_t next_due = -1;
};

using pass_ptr = std::shared_ptr<pass>;

void run(self_ptr self, size_t idx);

void arm(self_ptr self, size_t idx, caf::timespan delay) {
  auto& st = self->state;
  auto& lv = st.levels[idx];
  lv.timer = st.next_timer++;
  self->delayed_send(self, delay, tick_atom::value, lv.level, lv.timer);
}

caf::error save(schedule_service_state& st) {
  nlohmann::json table = nlohmann::json::object();
  for (auto& lv : st.levels)
    table[std::to_string(lv.level)] = lv.offset;
  auto err = json_file::save(st.options.offsets_path,
                             {{"offsetTable", std::move(table)}});
  if (err) {
    ++st.save_failures;
    st.dirty = true;
    RMQ_ERROR("schedule",
              "saving " << st.options.offsets_path << ": " << describe(err));
    return err;
  }
  ++st.saves;
  st.dirty = false;
  return caf::none;
}

// Ends a pass of level `idx`: retry with back-off after a failure, else
// go on at once (more may be due), at the head's due time, or wait for an
// arrival.
void finish(self_ptr self, size_t idx, bool failed, bool more) {
  auto& st = self->state;
  auto& lv = st.levels[idx];
  lv.busy = false;
  if (failed) {
    ++lv.failures;
    lv.backoff = lv.backoff.count() == 0
                   ? st.options.min_backoff
                   : std::min(lv.backoff * 2, st.options.max_backoff);
    arm(self, idx, lv.backoff);
    return;
  }
  lv.backoff = caf::timespan{0};
  if (more || lv.again) {
    run(self, idx);
    return;
  }
  if (lv.head_due >= 0)
    arm(self, idx,
        std::chrono::milliseconds{
          std::max<int64_t>(lv.head_due - st.now_ms(), 0)});
}

// Moves the level's offset past the delivered prefix of the pass, keeps
// later delivered records aside, and saves the file before anything else
// of this level runs.
void advance(self_ptr self, pass_ptr p) {
  auto& st = self->state;
  auto idx = p->level_index;
  auto& lv = st.levels[idx];
  bool gap = false;
  int64_t left = 0;
  for (auto& it : p->items) {
    if (!it.done) {
      gap = true;
      ++left;
      continue;
    }
    if (gap)
      lv.delivered_ahead.insert(it.queue_offset);
    else
      lv.offset = std::max(lv.offset, it.queue_offset + 1);
  }
  lv.delivered_ahead.erase(lv.delivered_ahead.begin(),
                           lv.delivered_ahead.lower_bound(lv.offset));
  lv.due = left;
  // Full pass: the next read tells.
  lv.head_due = p->next_due;
  if (gap)
    for (auto& it : p->items)
      if (!it.done) {
        lv.head_due = it.store_ts + lv.delay_ms;
        break;
      }
  auto err = save(st);
  finish(self, idx, gap || err, !gap && p->full);
}

void put(self_ptr self, pass_ptr p) {
  auto& st = self->state;
  put_due_messages(self, st.commit_log, st.options.request_timeout, "schedule",
                   p, [self, p](int64_t stored) {
                     self->state.levels[p->level_index].delivered += stored;
                     advance(self, p);
                   });
}

// After a start: looks each due record up in its real topic by UNIQ_KEY
// (the store's index) and marks the ones already there as done.
void verify(self_ptr self, pass_ptr p) {
  auto& st = self->state;
  find_delivered_copies(
    self, st.queue_service, st.options.request_timeout, "schedule", p,
    [self, p](const item& it) {
      auto& lv = self->state.levels[p->level_index];
      ++lv.verified;
      RMQ_INFO("schedule", "level " << lv.level << " offset " << it.queue_offset
                                    << " was delivered before the restart");
    },
    [self, p](bool failed, bool found) {
      auto idx = p->level_index;
      if (failed) {
        finish(self, idx, true, false);
        return;
      }
      if (!found)
        self->state.levels[idx].verifying = false;
      put(self, p);
    });
}

// The record at the level's offset cannot be read: it is lost, and
// waiting would hold every later message of the level (RocketMQ passes a
// record it cannot look up too).
void drop_head(self_ptr self, size_t idx, const char* why) {
  auto& st = self->state;
  auto& lv = st.levels[idx];
  RMQ_ERROR("schedule", "dropping level " << lv.level << " offset " << lv.offset
                                          << ": " << why);
  ++lv.dropped;
  ++lv.offset;
  lv.delivered_ahead.erase(lv.delivered_ahead.begin(),
                           lv.delivered_ahead.lower_bound(lv.offset));
  auto err = save(st);
  finish(self, idx, static_cast<bool>(err), true);
}

void on_read(self_ptr self, size_t idx, get_message_result& res) {
  auto& st = self->state;
  auto& lv = st.levels[idx];
  lv.max_offset = res.max_offset;
  auto status = static_cast<get_status>(res.status);
  auto moved = [&](int64_t to, const char* why) {
    RMQ_ERROR("schedule", "level " << lv.level << ": offset " << lv.offset
                                   << " " << why << ", moved to " << to);
    lv.offset = to;
    lv.delivered_ahead.clear();
    auto err = save(st);
    finish(self, idx, static_cast<bool>(err), true);
  };
  switch (status) {
    case get_status::found:
      break;
    case get_status::offset_too_small:
      // Retention deleted them (RocketMQ correctDelayOffset).
      moved(res.min_offset, "is below the queue's minimum");
      return;
    case get_status::offset_overflow_badly:
      moved(res.max_offset, "is above the queue's maximum");
      return;
    case get_status::offset_found_null:
      if (res.next_begin_offset > lv.offset) {
        moved(res.next_begin_offset, "has no record");
        return;
      }
      finish(self, idx, true, false);
      return;
    default:
      // Nothing at the offset yet: wait for an arrival.
      lv.head_due = -1;
      lv.due = 0;
      finish(self, idx, false, false);
      return;
  }
  // Decoded one by one with body CRCs: the records before a damaged one
  // are delivered, the damaged one is passed when it is the head.
  std::vector<record_view> recs;
  size_t pos = 0;
  for (size_t i = 0; i < res.queue_offsets.size(); ++i) {
    record_view rec;
    if (pos >= res.buffer.size()
        || decode_record(res.buffer.data() + pos, res.buffer.size() - pos, rec,
                         true)
             != decode_status::ok)
      break;
    pos += static_cast<size_t>(rec.total_size);
    recs.push_back(rec);
  }
  if (recs.empty()) {
    drop_head(self, idx, "its record is damaged");
    return;
  }
  auto p = std::make_shared<pass>();
  p->level_index = idx;
  auto now = st.now_ms();
  bool cut = false;
  for (size_t i = 0; i < recs.size(); ++i) {
    auto& rec = recs[i];
    auto q = res.queue_offsets[i];
    auto due_at = rec.store_timestamp + lv.delay_ms;
    // A wall clock set back would hold messages longer than their delay:
    // deliver now (RocketMQ correctDeliverTimestamp).
    if (due_at > now + lv.delay_ms)
      due_at = now;
    if (due_at > now) {
      p->next_due = due_at;
      cut = true;
      break;
    }
    item it;
    it.queue_offset = q;
    it.store_ts = rec.store_timestamp;
    if (lv.delivered_ahead.count(q) > 0) {
      it.done = true;
    } else if (auto msg = from_schedule(rec); !msg) {
      RMQ_ERROR("schedule", "dropping level " << lv.level << " offset " << q
                                              << ": " << describe(msg.error()));
      ++lv.dropped;
      it.done = true;
    } else {
      it.msg = std::move(*msg);
    }
    p->items.push_back(std::move(it));
  }
  // More records than this read returned (batch or byte limit, a damaged
  // record): the next pass goes on at once.
  p->full = !cut
            && (recs.size() < res.queue_offsets.size()
                || res.next_begin_offset < res.max_offset);
  lv.due = static_cast<int64_t>(std::count_if(
    p->items.begin(), p->items.end(), [](const item& it) { return !it.done; }));
  if (p->items.empty()) {
    lv.head_due = p->next_due;
    finish(self, idx, false, false);
    return;
  }
  lv.head_due = p->items.front().store_ts + lv.delay_ms;
  if (lv.verifying)
    verify(self, p);
  else
    put(self, p);
}

void run(self_ptr self, size_t idx) {
  auto& st = self->state;
  if (st.options.slave)
    return;
  auto& lv = st.levels[idx];
  if (lv.busy) {
    lv.again = true;
    return;
  }
  lv.busy = true;
  lv.again = false;
  lv.timer = 0; // a pending wake-up is stale now
  // The file must hold every delivered offset before more is delivered.
  if (st.dirty && save(st)) {
    finish(self, idx, true, false);
    return;
  }
  get_message_request req;
  req.topic = schedule_topic;
  req.queue_id = delay_level_to_queue(lv.level);
  req.offset = lv.offset;
  req.max_count = st.options.batch;
  req.max_bytes = read_bytes;
  self->request(st.queue_service, st.options.request_timeout, std::move(req))
    .then([self, idx](get_message_result& res) { on_read(self, idx, res); },
          [self, idx](caf::error& err) {
            // The store refuses a read that starts at a damaged record.
            if (err == errc::corrupt_data) {
              drop_head(self, idx, error_detail(err).c_str());
              return;
            }
            log_request_failure("schedule", "reading a level", err);
            finish(self, idx, true, false);
          });
}

// After arrival notes: levels with a known head wait for its time, busy
// ones read again when their pass ends, idle ones look now.
void check_idle_levels(self_ptr self) {
  auto& st = self->state;
  for (size_t i = 0; i < st.levels.size(); ++i) {
    auto& lv = st.levels[i];
    if (lv.busy)
      lv.again = true;
    else if (lv.timer == 0 && lv.head_due < 0)
      run(self, i);
  }
}

caf::error load(schedule_service_state& st) {
  auto loaded = json_file::load_config(
    st.options.offsets_path, "schedule",
    "every delay level is checked again from offset 0",
    [&](const nlohmann::json& doc) -> caf::error {
      if (doc.is_null())
        return caf::none;
      auto table = doc.is_object() ? doc.find("offsetTable") : doc.end();
      if (!doc.is_object() || table == doc.end() || !table->is_object())
        return make_error(errc::corrupt_data, "no offsetTable");
      for (auto& lv : st.levels) {
        auto i = table->find(std::to_string(lv.level));
        if (i != table->end() && i->is_number_integer())
          lv.offset = std::max<int64_t>(i->get<int64_t>(), 0);
      }
      return caf::none;
    });
  // Unreadable and not movable: saving over it would lose it.
  return std::move(loaded.blocked);
}

} // namespace

std::string delay_offsets_json_path(const std::string& store_root) {
  return store_root + "/config/delayOffset.json";
}

int64_t schedule_service_state::now_ms() const {
  return options.wall_clock.now_ms();
}

schedule_progress schedule_service_state::progress() const {
  schedule_progress out;
  for (auto& lv : levels)
    out.levels.push_back(
      {lv.level, lv.delay_ms, lv.offset, lv.max_offset, lv.delivered});
  return out;
}

nlohmann::json schedule_service_state::dump_fields() const {
  auto now = now_ms();
  nlohmann::json lvls = nlohmann::json::array();
  int64_t delivered = 0;
  int64_t max_lag = 0;
  for (auto& lv : levels) {
    auto lag = lv.head_due >= 0 && lv.head_due <= now ? now - lv.head_due : 0;
    max_lag = std::max(max_lag, lag);
    delivered += lv.delivered;
    lvls.push_back({
      {"level", lv.level},
      {"delay_ms", lv.delay_ms},
      {"offset", lv.offset},
      {"max_offset", lv.max_offset},
      {"due", lv.due},
      {"lag_ms", lag},
      {"next_due_in_ms",
       lv.head_due >= 0 && lv.head_due > now ? lv.head_due - now : 0},
      {"delivered", lv.delivered},
      {"verified", lv.verified},
      {"dropped", lv.dropped},
      {"failures", lv.failures},
      {"verifying", lv.verifying},
      {"busy", lv.busy},
    });
  }
  return {
    {"offsets_path", options.offsets_path},
    {"slave", options.slave},
    {"levels", std::move(lvls)},
    {"delivered", delivered},
    {"lag_ms", max_lag},
    {"saves", saves},
    {"save_failures", save_failures},
    {"arrivals", arrivals},
  };
}

schedule_service_actor::behavior_type schedule_service(
  schedule_service_actor::stateful_pointer<schedule_service_state> self,
  schedule_service_options options, queue_service_actor queue_service,
  commit_log_writer_actor commit_log) {
  auto& st = self->state;
  st.options = std::move(options);
  st.options.batch = std::max(st.options.batch, 1);
  st.queue_service = std::move(queue_service);
  st.commit_log = std::move(commit_log);
  auto delays = parse_delay_levels(st.options.message_delay_level);
  caf::error err;
  if (!delays) {
    err = std::move(delays.error());
  } else {
    st.delays = std::move(*delays);
    for (size_t i = 0; i < st.delays.size(); ++i) {
      schedule_level lv;
      lv.level = static_cast<int32_t>(i + 1);
      lv.delay_ms = st.delays[i];
      st.levels.push_back(std::move(lv));
    }
    err = load(st);
  }
  if (err) {
    RMQ_ERROR("schedule", "cannot start: " << describe(err));
    self->quit(std::move(err));
    return {
      [](caf::get_atom) { return schedule_progress{}; },
      [](arrival_atom, int64_t) {},
      [](sync_atom, const schedule_progress&) {},
      [](tick_atom, int32_t, uint64_t) {},
      dump_handler(self),
    };
  }
  for (size_t i = 0; i < st.levels.size(); ++i)
    run(self, i);
  return {
    [=](caf::get_atom) { return self->state.progress(); },
    [=](arrival_atom, int64_t) {
      auto& st = self->state;
      ++st.arrivals;
      if (st.arrival_check_armed)
        return;
      if (st.options.arrival_check_delay.count() <= 0) {
        check_idle_levels(self);
        return;
      }
      st.arrival_check_armed = true;
      self->delayed_send(self, st.options.arrival_check_delay, tick_atom::value,
                         int32_t{0}, uint64_t{0});
    },
    [=](sync_atom, const schedule_progress& master) {
      auto& st = self->state;
      if (!st.options.slave)
        return; // a master's own progress is the truth
      for (auto& x : master.levels) {
        auto idx = static_cast<size_t>(x.level - 1);
        if (x.level < 1 || idx >= st.levels.size())
          continue;
        auto& lv = st.levels[idx];
        lv.max_offset = std::max(lv.max_offset, x.max_offset);
        if (x.offset > lv.offset) {
          lv.offset = x.offset;
          st.dirty = true;
        }
      }
      if (st.dirty)
        static_cast<void>(save(st)); // logged; saved again at the next sync
    },
    [=](tick_atom, int32_t level, uint64_t gen) {
      auto& st = self->state;
      if (level == 0) {
        st.arrival_check_armed = false;
        check_idle_levels(self);
        return;
      }
      auto idx = static_cast<size_t>(level - 1);
      if (level < 1 || idx >= st.levels.size() || st.levels[idx].timer != gen)
        return;
      st.levels[idx].timer = 0;
      run(self, idx);
    },
    dump_handler(self),
  };
}

} // namespace rmq
