#include "actors/broker/delayed/timer_service.hpp"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/storage/message_store.hpp"

#include "actors/broker/delayed/due_message_pass.hpp"
#include "actors/common/dump.hpp"

namespace rmq {

const char* timer_service_state::name = "timer_service";

namespace {

using self_ptr = timer_service_actor::stateful_pointer<timer_service_state>;

constexpr int32_t enqueue_tick = 0;
constexpr int32_t fire_tick = 1;
constexpr int32_t flush_tick = 2;

// One message of a pass over a slot.
struct item : due_message {
  storage::timer_entry entry;
};

// One pass: up to fire_batch messages of the slot at `slot_ms`.
struct pass {
  int64_t slot_ms = 0;
  /// The whole slot, in queue order.
  std::vector<storage::timer_entry> entries;
  std::vector<item> items;
  size_t pending_reads = 0;
  bool failed = false;
};

using pass_ptr = std::shared_ptr<pass>;

void fire(self_ptr self);
void enqueue(self_ptr self);

void arm_fire_at(self_ptr self, int64_t at_ms) {
  auto& st = self->state;
  st.armed_ms = at_ms;
  auto delay = std::max<int64_t>(at_ms - st.now_ms(), 0);
  self->delayed_send(self, std::chrono::milliseconds{delay}, tick_atom::value,
                     fire_tick, ++st.fire_gen);
}

// A failure: try the slot again after the back-off.
void back_off(self_ptr self) {
  auto& st = self->state;
  st.fire_busy = false;
  ++st.failures;
  st.backoff = st.backoff.count() == 0
                 ? st.options.min_backoff
                 : std::min(st.backoff * 2, st.options.max_backoff);
  st.armed_ms
    = st.now_ms()
      + std::chrono::duration_cast<std::chrono::milliseconds>(st.backoff)
          .count();
  self->delayed_send(self, st.backoff, tick_atom::value, fire_tick,
                     ++st.fire_gen);
}

// Nothing more is due now: wake at the next slot with timers.
void schedule_next(self_ptr self) {
  auto& st = self->state;
  st.fire_busy = false;
  auto next = st.store->next_due_ms();
  if (next < 0) {
    st.armed_ms = -1;
    ++st.fire_gen; // a pending wake-up is stale
  } else if (st.armed_ms != next) {
    arm_fire_at(self, next);
  }
  // The read time moved: an entry a wheel ahead may fit now.
  if (st.enqueue_blocked)
    enqueue(self);
}

void flush(timer_service_state& st) {
  st.last_flush_ms = st.now_ms();
  if (auto err = st.store->flush()) {
    ++st.failures;
    RMQ_ERROR("timer", "writing the checkpoint: " << describe(err));
    return;
  }
  st.dirty = false;
  ++st.checkpoints;
}

// Progress was made: write the checkpoint now if the last one is a flush
// interval old, else once that interval is over.
void maybe_flush(self_ptr self) {
  auto& st = self->state;
  st.dirty = true;
  auto due = st.last_flush_ms + st.options.flush_interval_ms;
  auto now = st.now_ms();
  if (now >= due) {
    flush(st);
    return;
  }
  if (st.flush_armed)
    return;
  st.flush_armed = true;
  self->delayed_send(self, std::chrono::milliseconds{due - now},
                     tick_atom::value, flush_tick, uint64_t{0});
}

void start_pass(self_ptr self, pass_ptr p);

// Every message of the pass is done: the next pass of the slot, or the
// next slot.
void pass_done(self_ptr self, pass_ptr p) {
  auto& st = self->state;
  for (auto& it : p->items)
    if (it.done)
      st.delivered_in_slot.insert(it.entry.queue_offset);
  if (std::any_of(p->items.begin(), p->items.end(),
                  [](const item& it) { return !it.done; })) {
    back_off(self);
    return;
  }
  st.backoff = caf::timespan{0};
  if (st.delivered_in_slot.size() < p->entries.size()) {
    auto next = std::make_shared<pass>();
    next->slot_ms = p->slot_ms;
    next->entries = std::move(p->entries);
    start_pass(self, next);
    return;
  }
  // The whole slot is in its real queues: move on, durably.
  st.delivered_in_slot.clear();
  auto late = st.now_ms() - p->slot_ms;
  st.last_lateness_ms = late;
  st.max_lateness_ms = std::max(st.max_lateness_ms, late);
  st.store->advance();
  maybe_flush(self);
  st.fire_busy = false;
  fire(self);
}

void put(self_ptr self, pass_ptr p) {
  auto& st = self->state;
  put_due_messages(self, st.commit_log, st.options.request_timeout, "timer", p,
                   [self, p](int64_t stored) {
                     self->state.delivered += stored;
                     pass_done(self, p);
                   });
}

// After a start: looks each message up in its real topic by UNIQ_KEY and
// marks the ones already there as done.
void verify(self_ptr self, pass_ptr p) {
  auto& st = self->state;
  find_delivered_copies(
    self, st.queue_service, st.options.request_timeout, "timer", p,
    [self](const item& it) {
      ++self->state.verified;
      RMQ_INFO("timer", "timer-topic offset "
                          << it.entry.queue_offset
                          << " was delivered before the restart");
    },
    [self, p](bool failed, bool found) {
      if (failed) {
        back_off(self);
        return;
      }
      if (!found)
        self->state.verifying = false;
      put(self, p);
    });
}

void drop(timer_service_state& st, item& it, const std::string& why) {
  RMQ_ERROR("timer", "dropping timer-topic offset " << it.entry.queue_offset
                                                    << ": " << why);
  ++st.dropped;
  it.done = true;
}

// All records of the pass are read: rebuild the real messages.
void on_read(self_ptr self, pass_ptr p) {
  auto& st = self->state;
  if (p->failed) {
    back_off(self);
    return;
  }
  if (st.verifying)
    verify(self, p);
  else
    put(self, p);
}

void start_pass(self_ptr self, pass_ptr p) {
  auto& st = self->state;
  st.fire_busy = true;
  for (auto& e : p->entries) {
    if (p->items.size() >= static_cast<size_t>(st.options.fire_batch))
      break;
    if (st.delivered_in_slot.count(e.queue_offset) == 0) {
      item it;
      it.entry = e;
      p->items.push_back(std::move(it));
    }
  }
  p->pending_reads = p->items.size();
  if (p->items.empty()) {
    pass_done(self, p);
    return;
  }
  for (size_t i = 0; i < p->items.size(); ++i) {
    self
      ->request(st.queue_service, st.options.request_timeout,
                caf::get_atom::value, p->items[i].entry.phys_offset)
      .then(
        [self, p, i](std::string& raw) {
          auto& it = p->items[i];
          record_view rec;
          if (decode_record(raw.data(), raw.size(), rec, true)
              != decode_status::ok) {
            drop(self->state, it, "its record is damaged");
          } else if (auto msg = from_timer(rec); !msg) {
            drop(self->state, it, describe(msg.error()));
          } else {
            it.store_ts = rec.store_timestamp;
            it.msg = std::move(*msg);
          }
          if (--p->pending_reads == 0)
            on_read(self, p);
        },
        [self, p, i](caf::error& err) {
          auto& it = p->items[i];
          // Retention deleted it, or it is damaged: it cannot come back.
          if (err == errc::corrupt_data || err == errc::query_not_found
              || err == errc::invalid_parameter)
            drop(self->state, it, describe(err));
          else {
            log_request_failure("timer", "reading a due message", err);
            p->failed = true;
          }
          if (--p->pending_reads == 0)
            on_read(self, p);
        });
  }
}

// A slave's: passes the slots its master fired, fires nothing.
void pass_fired(self_ptr self) {
  auto& st = self->state;
  auto& ts = *st.store;
  bool moved = false;
  while (ts.read_ms() < st.master_read_ms) {
    if (auto err = ts.advance()) {
      RMQ_ERROR("timer",
                "passing slot " << ts.read_ms() << ": " << describe(err));
      break;
    }
    moved = true;
  }
  if (moved) {
    maybe_flush(self);
    if (st.enqueue_blocked)
      enqueue(self);
  }
}

void fire(self_ptr self) {
  auto& st = self->state;
  if (st.options.slave) {
    pass_fired(self);
    return;
  }
  if (st.fire_busy)
    return;
  auto& ts = *st.store;
  auto now = st.now_ms();
  while (ts.read_ms() <= now) {
    auto due = ts.due();
    if (!due) {
      RMQ_ERROR("timer", "slot " << ts.read_ms()
                                 << " cannot be read, its timers are lost: "
                                 << describe(due.error()));
      ++st.dropped;
      ts.advance();
      continue;
    }
    if (due->empty()) {
      ts.advance();
      continue;
    }
    auto p = std::make_shared<pass>();
    p->slot_ms = ts.read_ms();
    p->entries = std::move(*due);
    start_pass(self, p);
    return;
  }
  schedule_next(self);
}

void enqueue(self_ptr self) {
  auto& st = self->state;
  if (st.enqueue_busy) {
    st.enqueue_again = true;
    return;
  }
  st.enqueue_busy = true;
  st.enqueue_again = false;
  queue_units_request req{timer_topic, 0, st.store->enqueue_offset(),
                          st.options.enqueue_batch};
  self->request(st.queue_service, st.options.request_timeout, std::move(req))
    .then(
      [self](queue_units& res) {
        auto& st = self->state;
        auto& ts = *st.store;
        st.enqueue_busy = false;
        st.queue_max = res.max_offset;
        bool blocked = false;
        bool added = false;
        for (auto& u : res.units) {
          if (u.queue_offset < ts.enqueue_offset())
            continue;
          // The slot being fired took its entries already: an overdue
          // one goes into the next slot.
          auto slot = u.tags_code;
          if (st.fire_busy)
            slot = std::max(slot, ts.read_ms() + ts.precision_ms());
          auto err = ts.add({slot, u.phys_offset, u.size, u.queue_offset});
          if (err == errc::system_busy) {
            blocked = true;
            break;
          }
          if (err) {
            RMQ_ERROR("timer", "enqueueing timer-topic offset "
                                 << u.queue_offset << ": " << describe(err));
            ts.skip(u.queue_offset);
            continue;
          }
          ++st.enqueued;
          added = true;
        }
        // Only blank units were left: pass them.
        if (!blocked && res.units.empty()
            && ts.enqueue_offset() < res.max_offset)
          ts.skip(res.max_offset - 1);
        st.enqueue_blocked = blocked;
        if (added) {
          maybe_flush(self);
          fire(self);
        }
        if (!blocked
            && (st.enqueue_again || ts.enqueue_offset() < res.max_offset))
          enqueue(self);
      },
      [self](caf::error& err) {
        auto& st = self->state;
        st.enqueue_busy = false;
        ++st.failures;
        log_request_failure("timer", "reading the timer queue", err);
        self->delayed_send(self, st.options.max_backoff, tick_atom::value,
                           enqueue_tick, ++st.enqueue_gen);
      });
}

} // namespace

std::string timer_store_dir(const std::string& store_root) {
  return store_root + "/timer";
}

timer_service_state::~timer_service_state() {
  // A clean close: the next start trusts the wheel.
  if (store)
    if (auto err = store->close())
      RMQ_ERROR("timer", "closing the timer store: " << describe(err));
}

int64_t timer_service_state::now_ms() const {
  return options.wall_clock.now_ms();
}

timer_progress timer_service_state::progress() const {
  timer_progress out;
  if (!store)
    return out;
  auto now = now_ms();
  out.pending = store->pending();
  out.next_due_ms = store->next_due_ms();
  out.read_ms = store->read_ms();
  // Only a due timer not fired yet is late: an idle wheel does not move
  // its read time, and that is no lag.
  out.dequeue_lag_ms = out.pending > 0 && out.next_due_ms >= 0
                         ? std::max<int64_t>(now - out.next_due_ms, 0)
                         : 0;
  out.enqueue_offset = store->enqueue_offset();
  out.enqueue_behind = std::max<int64_t>(queue_max - out.enqueue_offset, 0);
  out.delivered = delivered;
  return out;
}

nlohmann::json timer_service_state::dump_fields() const {
  auto p = progress();
  auto s = store ? store->stats() : storage::timer_store_stats{};
  return {
    {"dir", options.dir},
    {"timer_max_delay_sec", options.timer.max_delay_sec},
    {"timer_precision_ms", options.timer.precision_ms},
    {"progress", p},
    {"log_entries", s.log_entries},
    {"log_segments", s.log_segments},
    {"rebuilt_at_start", s.rebuilt},
    {"enqueued", enqueued},
    {"delivered", delivered},
    {"verified", verified},
    {"dropped", dropped},
    {"failures", failures},
    {"arrivals", arrivals},
    {"checkpoints", checkpoints},
    {"flush_interval_ms", options.flush_interval_ms},
    {"verifying", verifying},
    {"slave", options.slave},
    {"master_read_ms", master_read_ms},
    {"enqueue_blocked", enqueue_blocked},
    {"firing", fire_busy},
    {"armed_ms", armed_ms},
    {"last_lateness_ms", last_lateness_ms},
    {"max_lateness_ms", max_lateness_ms},
  };
}

timer_service_actor::behavior_type
timer_service(timer_service_actor::stateful_pointer<timer_service_state> self,
              timer_service_options options, queue_service_actor queue_service,
              commit_log_writer_actor commit_log) {
  auto& st = self->state;
  st.options = std::move(options);
  st.options.enqueue_batch = std::max(st.options.enqueue_batch, 1);
  st.options.fire_batch = std::max(st.options.fire_batch, 1);
  st.queue_service = std::move(queue_service);
  st.commit_log = std::move(commit_log);
  storage::timer_store_config cfg;
  cfg.dir = st.options.dir;
  cfg.precision_ms = std::max<int64_t>(st.options.timer.precision_ms, 1);
  cfg.wheel_slots = std::max<int64_t>(
    2 * st.options.timer.max_delay_sec * 1000 / cfg.precision_ms, 1);
  cfg.log_segment_entries = st.options.log_segment_entries;
  auto opened = storage::timer_store::open(cfg, st.now_ms());
  if (!opened) {
    RMQ_ERROR("timer", "cannot start: " << describe(opened.error()));
    self->quit(std::move(opened.error()));
    return {
      [](caf::get_atom) { return timer_progress{}; },
      [](arrival_atom, int64_t) {},
      [](sync_atom, const timer_progress&) {},
      [](tick_atom, int32_t, uint64_t) {},
      dump_handler(self),
    };
  }
  st.store = std::move(*opened);
  st.last_flush_ms = st.now_ms();
  enqueue(self);
  fire(self);
  return {
    [=](caf::get_atom) { return self->state.progress(); },
    [=](arrival_atom, int64_t) {
      ++self->state.arrivals;
      enqueue(self);
    },
    [=](sync_atom, const timer_progress& master) {
      auto& st = self->state;
      if (!st.options.slave || master.read_ms <= st.master_read_ms)
        return;
      st.master_read_ms = master.read_ms;
      fire(self);
    },
    [=](tick_atom, int32_t kind, uint64_t gen) {
      auto& st = self->state;
      if (kind == enqueue_tick) {
        if (gen == st.enqueue_gen)
          enqueue(self);
        return;
      }
      if (kind == flush_tick) {
        st.flush_armed = false;
        if (st.dirty)
          flush(st);
        return;
      }
      if (gen != st.fire_gen)
        return;
      st.armed_ms = -1;
      fire(self);
    },
    dump_handler(self),
  };
}

} // namespace rmq
