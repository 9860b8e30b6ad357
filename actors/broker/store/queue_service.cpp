#include "actors/broker/store/queue_service.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* dispatch_state::name = "queue_service";

namespace {

int64_t to_ms(caf::timespan x) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(x).count();
}

using self_ptr = network_pointer<queue_service_actor, dispatch_state>;

// Tells `w` that queue (topic, qid) reaches `max`; a watch with a read
// gets that read's result too (a failed read: the plain note, and the
// watcher reads for itself).
void fire(self_ptr self, const dispatch_state::queue_watch& w,
          const std::string& topic, int32_t qid, int64_t max) {
  // Not while the helper holds the store: then the watcher reads itself.
  if (w.read && self->state.helper_busy == 0) {
    if (auto got = self->state.store->get_messages(*w.read)) {
      self->send(w.hdl, arrival_atom::value, topic, qid, max, w.id,
                 std::move(*got));
      return;
    }
  }
  self->send(w.hdl, arrival_atom::value, topic, qid, max);
}

// Tells the watchers of queues that passed their offsets, once each.
void notify_watches(self_ptr self) {
  auto& st = self->state;
  for (auto i = st.watches.begin(); i != st.watches.end();) {
    auto& [topic, qid] = i->first;
    auto max = st.store->offsets(topic, qid).max_offset;
    auto& ws = i->second;
    for (auto j = ws.begin(); j != ws.end();)
      if (max > j->above) {
        fire(self, *j, topic, qid, max);
        j = ws.erase(j);
      } else {
        ++j;
      }
    i = ws.empty() ? st.watches.erase(i) : std::next(i);
  }
}

// Adds (or replaces) `w` as its watcher's watch of queue (topic, qid), or
// fires it at once if a message is there already (it came between the
// watcher's read and this watch).
void add_watch(self_ptr self, std::string topic, int32_t qid,
               dispatch_state::queue_watch w) {
  auto& st = self->state;
  if (!w.hdl)
    return;
  // While the helper holds the store, the check waits for it to be done.
  if (st.helper_busy > 0) {
    st.check_watches = true;
  } else if (auto max = st.store->offsets(topic, qid).max_offset;
             max > w.above) {
    fire(self, w, topic, qid, max);
    return;
  }
  auto& ws = st.watches[{std::move(topic), qid}];
  for (auto& x : ws)
    if (x.hdl == w.hdl) {
      x = std::move(w);
      return;
    }
  auto& known = st.watchers;
  if (std::find(known.begin(), known.end(), w.hdl.address()) == known.end()) {
    self->monitor(w.hdl);
    known.push_back(w.hdl.address());
  }
  ws.push_back(std::move(w));
}

// After a dispatch that moved on from the last announced offset: tells the
// listeners and the watches, and answers the dispatch requests it covers.
// Only while the helper is idle: it asks the store.
void announce(self_ptr self) {
  auto& st = self->state;
  auto after = st.store->dispatched_offset();
  auto before = std::exchange(st.announced, after);
  if (std::exchange(st.check_watches, false) && after == before)
    notify_watches(self);
  if (after != before) {
    // One note per dispatch, not per queue: the listener (the hold
    // service) asks the queues it waits on, see docs/broker.md.
    for (auto& listener : st.listeners)
      self->send(listener, arrival_atom::value, after);
    for (auto& tl : st.topic_listeners)
      if (auto total = st.store->topic_max_total(tl.topic); total != tl.seen) {
        tl.seen = total;
        self->send(tl.hdl, arrival_atom::value, after);
      }
    if (!st.watches.empty())
      notify_watches(self);
  }
  auto& ws = st.dispatch_waiters;
  auto end = st.store->write_offset();
  for (auto i = ws.begin(); i != ws.end();)
    if (after >= std::min(i->first, end)) {
      i->second.deliver(after);
      i = ws.erase(i);
    } else {
      ++i;
    }
}

caf::expected<int64_t> dispatch_to(self_ptr self, int64_t up_to);

/// Records past this many bytes are dispatched by the helper.
constexpr int64_t helper_dispatch_bytes = 8 * 1024;

// A helper request is answered: once the helper is idle, the dispatches
// that waited for it go on here.
void helper_done(self_ptr self) {
  auto& st = self->state;
  if (--st.helper_busy > 0)
    return;
  announce(self);
  if (st.pending_dispatch < 0)
    return;
  auto up_to = std::max(st.pending_dispatch, st.store->dispatchable_offset());
  st.pending_dispatch = -1;
  dispatch_to(self, up_to);
}

// Asks the helper; `then` gets its answer or error, after which the
// helper counts as one request less busy.
template <class T, class F, class... Ts>
void ask_helper(self_ptr self, F then, Ts&&... xs) {
  ++self->state.helper_busy;
  self->request(self->state.helper, caf::infinite, std::forward<Ts>(xs)...)
    .then(
      [self, then](T& x) mutable {
        then(caf::expected<T>{std::move(x)});
        helper_done(self);
      },
      [self, then](caf::error& err) mutable {
        then(caf::expected<T>{std::move(err)});
        helper_done(self);
      });
}

// Hands the dispatch from the record that needs a new file on to the
// helper, which may block creating it.
void dispatch_by_helper(self_ptr self, int64_t up_to) {
  ++self->state.helper_dispatches;
  ask_helper<int64_t>(
    self,
    [self](caf::expected<int64_t> res) {
      if (res)
        return;
      self->state.last_error = describe(res.error());
      RMQ_ERROR("store", "dispatch failed: " << self->state.last_error);
    },
    dispatch_atom::value, up_to);
}

// Dispatches up to `up_to` here, as far as no new file is needed, and
// tells the listeners and watches when the queues moved on. Answers the
// offset dispatched here (the helper's part is announced when it is done).
caf::expected<int64_t> dispatch_to(self_ptr self, int64_t up_to) {
  auto& st = self->state;
  ++st.dispatch_requests;
  if (st.helper && st.helper_busy > 0) {
    st.pending_dispatch = std::max(st.pending_dispatch, up_to);
    return st.store->dispatched_offset();
  }
  if (st.helper
      && up_to - st.store->dispatched_offset() > helper_dispatch_bytes) {
    // A long stretch (a batch's records) goes to the helper's thread
    // whole, so that it runs beside the next sends on this one.
    dispatch_by_helper(self, up_to);
    return st.store->dispatched_offset();
  }
  bool done = true;
  caf::error err;
  if (!st.helper) {
    err = st.store->dispatch(up_to);
  } else if (auto res = st.store->dispatch_without_files(up_to)) {
    done = *res;
  } else {
    err = std::move(res.error());
  }
  if (err) {
    st.last_error = describe(err);
    RMQ_ERROR("store", "dispatch failed: " << st.last_error);
    return err;
  }
  announce(self);
  if (!done)
    dispatch_by_helper(self, up_to);
  return st.store->dispatched_offset();
}

// Forwards a request to the helper and its answer back.
template <class T, class... Ts>
caf::result<T> by_helper(self_ptr self, Ts&&... xs) {
  ++self->state.helper_requests;
  auto rp = self->make_response_promise<T>();
  ask_helper<T>(
    self,
    [rp](caf::expected<T> res) mutable {
      if (res)
        rp.deliver(std::move(*res));
      else
        rp.deliver(std::move(res.error()));
    },
    std::forward<Ts>(xs)...);
  return rp;
}

} // namespace

queue_service_actor::behavior_type
queue_service(network_pointer<queue_service_actor, dispatch_state> self,
              std::shared_ptr<storage::message_store> store,
              caf::timespan checkpoint_interval, queue_service_actor helper) {
  auto& st = self->state;
  st.store = std::move(store);
  st.helper = std::move(helper);
  if (st.helper)
    self->link_to(st.helper);
  st.checkpoint_interval = checkpoint_interval;
  st.log_min_offset = st.store->min_offset();
  st.announced = st.store->dispatched_offset();
  auto arm = [self] {
    if (self->state.checkpoint_interval.count() > 0)
      self->delayed_send(self, self->state.checkpoint_interval,
                         tick_atom::value);
  };
  arm();
  self->set_down_handler([self](const caf::down_msg& msg) {
    auto& ls = self->state.listeners;
    ls.erase(std::remove_if(ls.begin(), ls.end(),
                            [&](const arrival_listener_actor& x) {
                              return x.address() == msg.source;
                            }),
             ls.end());
    auto& tls = self->state.topic_listeners;
    tls.erase(std::remove_if(tls.begin(), tls.end(),
                             [&](const dispatch_state::topic_listener& x) {
                               return x.hdl.address() == msg.source;
                             }),
              tls.end());
    auto& known = self->state.watchers;
    known.erase(std::remove(known.begin(), known.end(), msg.source),
                known.end());
    auto& watches = self->state.watches;
    for (auto i = watches.begin(); i != watches.end();) {
      auto& ws = i->second;
      ws.erase(std::remove_if(ws.begin(), ws.end(),
                              [&](const dispatch_state::queue_watch& x) {
                                return x.hdl.address() == msg.source;
                              }),
               ws.end());
      i = ws.empty() ? watches.erase(i) : std::next(i);
    }
  });
  auto checkpoint = [self]() -> caf::error {
    auto& st = self->state;
    // Retention moved the log's start: queues and index follow.
    if (auto min = st.store->min_offset(); min != st.log_min_offset) {
      st.store->clean_consume_queues();
      st.log_min_offset = min;
    }
    auto err = st.store->save_checkpoint();
    if (err)
      st.last_error = describe(err);
    else
      ++st.checkpoints;
    return err;
  };
  return {
    [=](dispatch_atom, int64_t up_to) -> caf::result<int64_t> {
      auto res = dispatch_to(self, up_to);
      if (!res)
        return std::move(res.error());
      if (*res >= std::min(up_to, self->state.store->write_offset()))
        return *res;
      // The helper (or a helper request before it) has the rest.
      auto rp = self->make_response_promise<int64_t>();
      self->state.dispatch_waiters.emplace_back(up_to, rp);
      return rp;
    },
    [=](dispatch_atom) {
      // Released first: an append published after this read sends a new
      // note.
      self->state.store->release_dispatch_note();
      dispatch_to(self, self->state.store->dispatchable_offset());
    },
    [=](caf::subscribe_atom, const arrival_listener_actor& listener) {
      auto& ls = self->state.listeners;
      if (!listener || std::find(ls.begin(), ls.end(), listener) != ls.end())
        return;
      self->monitor(listener);
      ls.push_back(listener);
    },
    [=](caf::subscribe_atom, const arrival_listener_actor& listener,
        std::string& topic) {
      auto& tls = self->state.topic_listeners;
      if (!listener)
        return;
      for (auto& tl : tls)
        if (tl.hdl == listener && tl.topic == topic)
          return;
      self->monitor(listener);
      // Unknown while the helper holds the store: the next dispatch tells.
      auto seen = self->state.helper_busy > 0
                    ? int64_t{-1}
                    : self->state.store->topic_max_total(topic);
      tls.push_back({listener, std::move(topic), seen});
    },
    [=](watch_atom, const queue_watcher_actor& watcher, std::string& topic,
        int32_t qid, int64_t above) {
      add_watch(self, std::move(topic), qid, {watcher, above, -1, {}});
    },
    [=](watch_atom, const queue_watcher_actor& watcher, int64_t id,
        get_message_request& read) {
      auto topic = read.topic;
      auto qid = read.queue_id;
      auto above = read.offset;
      add_watch(self, std::move(topic), qid,
                {watcher, above, id, std::move(read)});
    },
    [=](tick_atom) {
      auto& st = self->state;
      arm();
      if (!st.helper) {
        if (auto err = checkpoint())
          RMQ_ERROR("store", "checkpoint failed: " << describe(err));
        return;
      }
      if (st.finishing_checkpoint)
        return; // the last one is still syncing: this round is skipped
      auto min = st.store->min_offset();
      if (min == st.log_min_offset) {
        // Its fdatasyncs block: the helper's job. Only the note of what to
        // sync takes the store's lock, so that dispatches (and the pulls
        // held for them) go on here meanwhile: with the whole checkpoint
        // at the helper they waited for its fdatasyncs, a few ms a second
        // (docs/broker.md, "The queue service and its helper").
        st.store->prepare_checkpoint();
        st.finishing_checkpoint = true;
        self
          ->request(st.helper, caf::infinite, checkpoint_atom::value,
                    flush_atom::value)
          .then(
            [self](int64_t) {
              self->state.finishing_checkpoint = false;
              ++self->state.checkpoints;
            },
            [self](const caf::error& err) {
              self->state.finishing_checkpoint = false;
              self->state.last_error = describe(err);
              RMQ_ERROR("store",
                        "checkpoint failed: " << self->state.last_error);
            });
        return;
      }
      // Retention moved the log's start: the helper also cleans the queues
      // and the index (unlinks), holding the store meanwhile.
      st.log_min_offset = min;
      ask_helper<int64_t>(
        self,
        [self](caf::expected<int64_t> res) {
          if (res) {
            ++self->state.checkpoints;
            return;
          }
          self->state.last_error = describe(res.error());
          RMQ_ERROR("store", "checkpoint failed: " << self->state.last_error);
        },
        checkpoint_atom::value);
    },
    [=](checkpoint_atom, flush_atom) -> caf::result<int64_t> {
      if (auto err = self->state.store->finish_checkpoint())
        return err;
      ++self->state.checkpoints;
      return self->state.store->dispatched_offset();
    },
    [=](checkpoint_atom) -> caf::result<int64_t> {
      if (self->state.helper)
        return by_helper<int64_t>(self, checkpoint_atom::value);
      if (auto err = checkpoint())
        return err;
      return self->state.store->dispatched_offset();
    },
    [=](const get_message_request& req) -> caf::result<get_message_result> {
      auto& st = self->state;
      if (st.helper && st.helper_busy > 0)
        return by_helper<get_message_result>(self, req);
      bool far_back = false;
      auto res = st.store->get_messages(req, st.helper ? &far_back : nullptr);
      if (far_back)
        return by_helper<get_message_result>(self, req);
      // A damaged consume queue: rebuilt (by the helper, it scans the
      // log) while the puller backs off and asks again, or after this
      // read when only a unit's size was off.
      if (st.store->needs_repair())
        caf::anon_send(self, repair_atom::value);
      if (!res)
        return std::move(res.error());
      return std::move(*res);
    },
    [=](repair_atom) -> caf::result<int64_t> {
      if (self->state.helper)
        return by_helper<int64_t>(self, repair_atom::value);
      auto res = self->state.store->repair_queues();
      if (!res) {
        self->state.last_error = describe(res.error());
        RMQ_ERROR("store", "rebuilding damaged consume queues failed: "
                             << self->state.last_error);
        return std::move(res.error());
      }
      return static_cast<int64_t>(*res);
    },
    [=](const get_offset_request& req) -> caf::result<queue_offsets> {
      if (self->state.helper && self->state.helper_busy > 0)
        return by_helper<queue_offsets>(self, req);
      return self->state.store->offsets(req.topic, req.queue_id);
    },
    [=](const search_offset_request& req) -> caf::result<int64_t> {
      // A binary search over units and records far back: may read disk.
      if (self->state.helper)
        return by_helper<int64_t>(self, req);
      return self->state.store->search_offset(req);
    },
    [=](caf::get_atom, int64_t phys) -> caf::result<std::string> {
      if (self->state.helper)
        return by_helper<std::string>(self, caf::get_atom::value, phys);
      auto res = self->state.store->lookup(phys);
      if (!res)
        return std::move(res.error());
      return std::move(*res);
    },
    [=](const query_message_request& req) -> caf::result<query_message_result> {
      if (self->state.helper)
        return by_helper<query_message_result>(self, req);
      return self->state.store->query(req);
    },
    [=](const queue_units_request& req) -> caf::result<queue_units> {
      if (self->state.helper && self->state.helper_busy > 0)
        return by_helper<queue_units>(self, req);
      return self->state.store->units(req);
    },
    [=](caf::delete_atom, const std::string& topic) -> caf::result<int64_t> {
      // Unlinks files: the helper's job.
      if (self->state.helper)
        return by_helper<int64_t>(self, caf::delete_atom::value, topic);
      auto res = self->state.store->delete_topic(topic);
      if (!res) {
        self->state.last_error = describe(res.error());
        RMQ_ERROR("store", "deleting the queues of "
                             << topic << " failed: " << self->state.last_error);
        return std::move(res.error());
      }
      return static_cast<int64_t>(*res);
    },
    dump_handler(self),
  };
}

nlohmann::json dispatch_state::dump_fields() const {
  return {
    {"dispatched_offset", store->dispatched_offset()},
    {"write_offset", store->write_offset()},
    {"min_offset", store->min_offset()},
    // Not while the helper holds the store (-1).
    {"consume_queues", helper_busy > 0
                         ? int64_t{-1}
                         : static_cast<int64_t>(store->consume_queue_count())},
    {"checkpoint_interval_ms", to_ms(checkpoint_interval)},
    {"checkpoints", checkpoints},
    {"dispatch_requests", dispatch_requests},
    {"has_helper", static_cast<bool>(helper)},
    {"finishing_checkpoint", finishing_checkpoint},
    {"helper_busy", helper_busy},
    {"helper_dispatches", helper_dispatches},
    {"helper_requests", helper_requests},
    {"last_error", last_error},
    {"listeners", listeners.size()},
    {"topic_listeners", topic_listeners.size()},
    {"queue_watches", watches.size()},
    {"recovery_corrupt_ranges", store->recovery().corruptions.size()},
    {"corrupt_reads", store->corrupt_reads()},
    {"recovery_rebuilt", store->recovery().rebuilt},
    {"repaired_queues", store->repaired_queues()},
  };
}

} // namespace rmq
