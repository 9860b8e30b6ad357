#include "actors/broker/node/broker_admin_service.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/common/dump.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/message_record.hpp"

namespace rmq {

const char* broker_admin_state::name = "broker_admin_service";

nlohmann::json broker_admin_state::dump_fields() const {
  return {{"broker_name", options.broker_name},
          {"requests", requests},
          {"failed", failed}};
}

namespace {

using self_ptr
  = broker_admin_service_actor::stateful_pointer<broker_admin_state>;

constexpr auto ask_timeout = std::chrono::seconds{10};

// Large enough for any one record (the store refuses bigger messages).
constexpr int32_t one_record_bytes = 64 * 1024 * 1024;

// Counts outstanding answers of a fan-out; the first error wins and ends
// it, `finish` runs once when the last answer is in.
template <class T>
struct gather {
  T result;
  size_t pending = 1; // the fan-out's own reference, released by `start`
  caf::error first_error;
  caf::typed_response_promise<T> rp;
  /// Runs on `result` before it is delivered (sorting, assembling).
  std::function<void(T&)> finish;

  void add() {
    ++pending;
  }

  void fail(caf::error err) {
    if (!first_error)
      first_error = std::move(err);
    done();
  }

  void done() {
    if (--pending > 0)
      return;
    if (first_error)
      rp.deliver(std::move(first_error));
    else {
      if (finish)
        finish(result);
      rp.deliver(std::move(result));
    }
  }
};

template <class T>
std::shared_ptr<gather<T>> make_gather(caf::typed_response_promise<T> rp) {
  auto g = std::make_shared<gather<T>>();
  g->rp = std::move(rp);
  return g;
}

// Calls `cb(ts)` with the store timestamp of a queue's message at
// `offset`, or 0 when it is not there (any more); `on_err` on a failure.
template <class F, class G>
void store_time_at(self_ptr self, const std::string& topic, int32_t queue_id,
                   int64_t offset, F cb, G on_err) {
  get_message_request get;
  get.topic = topic;
  get.queue_id = queue_id;
  get.offset = offset;
  get.max_count = 1;
  get.max_bytes = one_record_bytes;
  self->request(self->state.peers.queue_service, ask_timeout, std::move(get))
    .then(
      [cb](const get_message_result& got) mutable {
        if (got.status == static_cast<uint8_t>(get_status::found)
            && !got.buffer.empty())
          cb(stored_timestamp(got.buffer.data()));
        else
          cb(int64_t{0});
      },
      [on_err](caf::error& err) mutable { on_err(std::move(err)); });
}

template <class F, class G>
void with_topic(self_ptr self, const std::string& topic, F cb, G on_err) {
  self
    ->request(self->state.peers.topics, ask_timeout, caf::get_atom::value,
              topic)
    .then([cb](topic_config& tc) mutable { cb(std::move(tc)); },
          [on_err](caf::error& err) mutable { on_err(std::move(err)); });
}

caf::result<topic_stats> get_topic_stats(self_ptr self,
                                         const topic_stats_request& req) {
  auto g = make_gather(self->make_response_promise<topic_stats>());
  g->result.topic = req.topic;
  g->result.broker_name = self->state.options.broker_name;
  auto fail = [self, g](caf::error err) {
    ++self->state.failed;
    g->fail(std::move(err));
  };
  with_topic(
    self, req.topic,
    [self, g, fail](topic_config tc) {
      auto n = std::max(tc.write_queue_nums, 0);
      g->result.queues.resize(static_cast<size_t>(n));
      for (int32_t q = 0; q < n; ++q) {
        g->add();
        self
          ->request(self->state.peers.queue_service, ask_timeout,
                    get_offset_request{tc.topic_name, q})
          .then(
            [self, g, fail, q, topic = tc.topic_name](queue_offsets& o) {
              auto& row = g->result.queues[static_cast<size_t>(q)];
              row.queue_id = q;
              row.min_offset = o.min_offset;
              row.max_offset = o.max_offset;
              if (o.max_offset <= o.min_offset) {
                g->done();
                return;
              }
              store_time_at(
                self, topic, q, o.max_offset - 1,
                [g, q](int64_t ts) {
                  g->result.queues[static_cast<size_t>(q)].last_update_timestamp
                    = ts;
                  g->done();
                },
                fail);
            },
            [fail](caf::error& err) { fail(std::move(err)); });
      }
      g->done();
    },
    fail);
  return g->rp;
}

// One topic's rows of a consume-stats answer.
void add_progress_rows(self_ptr self, std::shared_ptr<gather<consume_stats>> g,
                       std::string topic, std::map<int32_t, int64_t> committed,
                       std::function<void(caf::error)> fail) {
  g->add();
  with_topic(
    self, topic,
    [self, g, fail, committed](topic_config tc) {
      auto n = std::max(tc.write_queue_nums, 0);
      for (int32_t q = 0; q < n; ++q) {
        auto i = committed.find(q);
        // RocketMQ reports a queue the group never committed as 0.
        auto consumer_offset = i == committed.end() ? 0 : i->second;
        g->add();
        self
          ->request(self->state.peers.queue_service, ask_timeout,
                    get_offset_request{tc.topic_name, q})
          .then(
            [self, g, fail, q, consumer_offset,
             topic = tc.topic_name](queue_offsets& o) {
              auto row = std::make_shared<queue_progress>();
              row->topic = topic;
              row->broker_name = self->state.options.broker_name;
              row->queue_id = q;
              row->broker_offset = o.max_offset;
              row->consumer_offset = consumer_offset;
              auto store = [g, row](int64_t ts) {
                row->last_timestamp = ts;
                g->result.queues.push_back(std::move(*row));
                g->done();
              };
              if (consumer_offset > 0)
                store_time_at(self, topic, q, consumer_offset - 1, store, fail);
              else
                store(0);
            },
            [fail](caf::error& err) { fail(std::move(err)); });
      }
      g->done();
    },
    // A topic the group has offsets of but that is gone: skipped, as
    // RocketMQ does.
    [g, fail](caf::error err) {
      if (err == make_error(errc::topic_not_exist))
        g->done();
      else
        fail(std::move(err));
    });
}

caf::result<consume_stats> get_consume_stats(self_ptr self,
                                             const consume_stats_request& req) {
  // An empty group would list every group's offsets.
  if (req.consumer_group.empty())
    return make_error(errc::invalid_parameter, "the consumer group is empty");
  auto g = make_gather(self->make_response_promise<consume_stats>());
  std::function<void(caf::error)> fail = [self, g](caf::error err) {
    ++self->state.failed;
    g->fail(std::move(err));
  };
  self
    ->request(self->state.peers.offsets, ask_timeout,
              list_offsets_request{req.consumer_group, req.topic})
    .then(
      [self, g, fail, topic = req.topic](std::vector<consumer_offsets>& list) {
        std::map<std::string, std::map<int32_t, int64_t>> by_topic;
        for (auto& x : list)
          by_topic[x.topic] = std::move(x.offsets);
        if (!topic.empty())
          by_topic.emplace(topic, std::map<int32_t, int64_t>{});
        for (auto& [t, committed] : by_topic)
          add_progress_rows(self, g, t, committed, fail);
        g->done();
      },
      [fail](caf::error& err) { fail(std::move(err)); });
  g->add();
  self
    ->request(self->state.peers.pull, ask_timeout,
              group_pull_rate_request{req.consumer_group, req.topic})
    .then(
      [g](double tps) {
        g->result.consume_tps = tps;
        g->done();
      },
      // The rows are worth more than the rate: answer them without it.
      [g](caf::error& err) {
        log_request_failure("broker_admin", "group pull rate", err);
        g->done();
      });
  // Rows arrive in any order.
  g->finish = [](consume_stats& x) {
    std::sort(x.queues.begin(), x.queues.end(),
              [](const queue_progress& a, const queue_progress& b) {
                return std::tie(a.topic, a.queue_id)
                       < std::tie(b.topic, b.queue_id);
              });
  };
  return g->rp;
}

caf::result<int64_t>
get_earliest_time(self_ptr self, const earliest_msg_store_time_request& req) {
  auto rp = self->make_response_promise<int64_t>();
  auto fail = [self, rp](caf::error err) mutable {
    ++self->state.failed;
    rp.deliver(std::move(err));
  };
  self
    ->request(self->state.peers.queue_service, ask_timeout,
              get_offset_request{req.topic, req.queue_id})
    .then(
      [self, rp, fail, req](queue_offsets& o) mutable {
        if (o.max_offset <= o.min_offset) {
          // RocketMQ's getEarliestMessageTime answers -1 too.
          rp.deliver(int64_t{-1});
          return;
        }
        store_time_at(
          self, req.topic, req.queue_id, o.min_offset,
          [rp](int64_t ts) mutable { rp.deliver(ts > 0 ? ts : int64_t{-1}); },
          fail);
      },
      [fail](caf::error& err) mutable { fail(std::move(err)); });
  return rp;
}

std::string tps_text(const nlohmann::json& triple) {
  if (!triple.is_array() || triple.size() != 3)
    return "0.00 0.00 0.00";
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%.2f %.2f %.2f", triple[0].get<double>(),
                triple[1].get<double>(), triple[2].get<double>());
  return buf;
}

// RocketMQ's "[ 0 days, 1 hours, 2 minutes, 3 seconds ]".
std::string runtime_text(int64_t ms) {
  auto s = std::max<int64_t>(ms, 0) / 1000;
  return "[ " + std::to_string(s / 86400) + " days, "
         + std::to_string(s / 3600 % 24) + " hours, "
         + std::to_string(s / 60 % 60) + " minutes, " + std::to_string(s % 60)
         + " seconds ]";
}

template <class J>
std::string text_of(const J& x) {
  return x.is_string() ? x.template get<std::string>() : x.dump();
}

broker_runtime_info
runtime_table(const broker_admin_state& st, const nlohmann::json& send,
              const nlohmann::json& pull, const nlohmann::json& log,
              const nlohmann::json& dispatch, const nlohmann::json& schedule,
              const nlohmann::json& timer, const nlohmann::json& ha) {
  broker_runtime_info out;
  auto& t = out.table;
  auto num = [](const nlohmann::json& j, const char* key) -> int64_t {
    auto i = j.find(key);
    return i != j.end() && i->is_number() ? i->template get<int64_t>() : 0;
  };
  t["brokerVersionDesc"] = "rmq (RocketMQ 4.9 semantics)";
  t["flushDiskType"] = st.options.flush_disk_type;
  t["bootTimestamp"] = std::to_string(st.options.boot_timestamp);
  t["runtime"]
    = runtime_text(st.options.wall_clock.now_ms() - st.options.boot_timestamp);
  // Totals since start: the broker keeps no per-day snapshots.
  t["msgPutTotalTodayNow"] = std::to_string(num(send, "stored_messages"));
  t["msgGetTotalTodayNow"] = std::to_string(num(pull, "found_messages"));
  t["putTps"] = tps_text(send.value("put_tps", nlohmann::json{}));
  t["getFoundTps"] = tps_text(pull.value("get_tps", nlohmann::json{}));
  t["getTransferedTps"] = t["getFoundTps"];
  // Refused by the broker's checks or, disk above the warning level, by
  // the store (sendRefusedDiskFull of them).
  t["sendRefused"]
    = std::to_string(num(send, "refused") + num(log, "refused_disk_full"));
  t["sendRefusedDiskFull"] = std::to_string(num(log, "refused_disk_full"));
  t["commitLogForcedDeletions"] = std::to_string(num(log, "forced_deletions"));
  t["sendBusy"] = std::to_string(num(send, "busy"));
  t["sendFlushTimeouts"] = std::to_string(num(send, "flush_timeouts"));
  t["commitLogMinOffset"] = std::to_string(num(log, "min_offset"));
  t["commitLogMaxOffset"] = std::to_string(num(log, "write_offset"));
  t["commitLogFlushedOffset"] = std::to_string(num(log, "flushed_offset"));
  t["dispatchBehindBytes"]
    = std::to_string(num(log, "write_offset") - num(log, "dispatched_offset"));
  t["commitLogDiskRatio"] = text_of(log.value("disk_usage", nlohmann::json{0}));
  t["pendingBytes"] = std::to_string(num(log, "backlog_bytes"));
  t["pendingHighWatermarkBytes"]
    = std::to_string(num(log, "high_watermark_bytes"));
  t["storeBusy"] = log.value("busy", false) ? "true" : "false";
  t["consumeQueues"] = std::to_string(num(dispatch, "consume_queues"));
  t["corruptReads"] = std::to_string(num(dispatch, "corrupt_reads"));
  // Derived files rebuilt from the commit log: at start, and on reads.
  if (auto rb = dispatch.find("recovery_rebuilt");
      rb != dispatch.end() && rb->is_array())
    t["storeRebuiltAtStart"] = std::to_string(rb->size());
  t["storeRepairedQueues"] = std::to_string(num(dispatch, "repaired_queues"));
  // RocketMQ's "scheduleMessageOffset_<level>": "<delivered up to>,<max>".
  if (auto lv = schedule.find("levels"); lv != schedule.end() && lv->is_array())
    for (auto& x : *lv)
      t["scheduleMessageOffset_" + std::to_string(num(x, "level"))]
        = std::to_string(num(x, "offset")) + ","
          + std::to_string(num(x, "max_offset"));
  if (schedule.contains("lag_ms"))
    t["scheduleLagMs"] = std::to_string(num(schedule, "lag_ms"));
  // RocketMQ 5's timer figures (AdminBrokerProcessor): timerReadBehind in
  // seconds, timerOffsetBehind in messages, timerCongestNum the timers in
  // the wheel; the next due slot and the lag in ms are rmq's own.
  if (auto pr = timer.find("progress"); pr != timer.end() && pr->is_object()) {
    t["timerReadBehind"] = std::to_string(num(*pr, "dequeue_lag_ms") / 1000);
    t["timerOffsetBehind"] = std::to_string(num(*pr, "enqueue_behind"));
    t["timerCongestNum"] = std::to_string(num(*pr, "pending"));
    t["timerNextDueMs"] = std::to_string(num(*pr, "next_due_ms"));
    t["timerDequeueLagMs"] = std::to_string(num(*pr, "dequeue_lag_ms"));
    t["timerDelivered"] = std::to_string(num(*pr, "delivered"));
  }
  // The copy (docs/replication.md, "haStatus"), in RocketMQ 5's
  // HARuntimeInfo names: a master's slaves, or a slave's master.
  if (auto rows = ha.find("slaves"); rows != ha.end() && rows->is_array()) {
    int64_t diff = 0;
    for (auto& r : *rows)
      diff = std::max(diff, num(r, "lag_bytes"));
    t["haSlaveNums"] = std::to_string(rows->size());
    t["inSyncSlaveNums"] = std::to_string(num(ha, "in_sync_slaves"));
    t["haMaxSlaveDiff"] = std::to_string(diff);
  }
  if (auto m = ha.find("master_addr"); m != ha.end() && m->is_string()) {
    t["masterAddr"] = m->get<std::string>();
    t["masterFlushOffset"] = std::to_string(num(ha, "master_offset"));
    t["haSlaveDiff"] = std::to_string(num(ha, "lag_bytes"));
  }
  return out;
}

// Half messages pending per producer group (no RocketMQ key: mqadmin
// has no view of them), the check service's progress "<offset>,<max>" as
// scheduleMessageOffset_<level>, and its counters.
void add_transaction_figures(broker_runtime_info& out,
                             const nlohmann::json& txn) {
  if (!txn.contains("pending"))
    return;
  auto& t = out.table;
  auto num = [](const nlohmann::json& j, const char* key) -> int64_t {
    auto i = j.find(key);
    return i != j.end() && i->is_number() ? i->template get<int64_t>() : 0;
  };
  t["transactionHalfOffset"] = std::to_string(num(txn, "half_offset")) + ","
                               + std::to_string(num(txn, "half_max_offset"));
  // Until the check service has read both queues after a start its set
  // is incomplete: no count rather than a wrong one.
  t["transactionHalfPending"] = txn.value("rebuilt", true)
                                  ? std::to_string(num(txn, "pending"))
                                  : "rebuilding";
  t["transactionChecks"] = std::to_string(num(txn, "checks"));
  t["transactionDiscarded"] = std::to_string(num(txn, "discarded"));
  if (auto gs = txn.find("groups"); gs != txn.end() && gs->is_array())
    for (auto& g : *gs)
      if (g.contains("producer_group") && g["producer_group"].is_string())
        t["transactionHalfPending_" + g["producer_group"].get<std::string>()]
          = std::to_string(num(g, "pending"));
}

// The config files' trouble, from the dumps of the tables that keep them
// (runtime/common/config_file.hpp): a save failing now or blocked, and the
// damaged files kept aside at start. "none" when there is nothing to say.
void add_config_file_figures(broker_runtime_info& out,
                             const std::vector<const nlohmann::json*>& dumps) {
  std::string failing;
  std::string corrupt;
  auto append = [](std::string& to, const std::string& x) {
    to += (to.empty() ? "" : "; ") + x;
  };
  auto str = [](const nlohmann::json& j, const char* key) {
    auto i = j.find(key);
    return i != j.end() && i->is_string() ? i->get<std::string>()
                                          : std::string{};
  };
  for (auto* d : dumps) {
    auto path = str(*d, "path");
    for (auto key : {"save_blocked", "save_failing", "last_error"})
      if (auto why = str(*d, key); !why.empty())
        append(failing, path + ": " + why);
    if (auto copy = str(*d, "corrupt_copy"); !copy.empty())
      append(corrupt, copy);
  }
  out.table["configSaveFailing"] = failing.empty() ? "none" : failing;
  out.table["configCorruptCopies"] = corrupt.empty() ? "none" : corrupt;
}

caf::result<broker_runtime_info> get_runtime_info(self_ptr self) {
  struct parts {
    nlohmann::json send, pull, log, dispatch;
    nlohmann::json topics = nlohmann::json::object();
    nlohmann::json offsets = nlohmann::json::object();
    nlohmann::json groups = nlohmann::json::object();
    nlohmann::json schedule = nlohmann::json::object();
    nlohmann::json transaction = nlohmann::json::object();
    nlohmann::json timer = nlohmann::json::object();
    nlohmann::json ha = nlohmann::json::object();
  };
  auto acc = std::make_shared<parts>();
  auto g = make_gather(self->make_response_promise<broker_runtime_info>());
  auto ask = [self, g](auto hdl, nlohmann::json* out) {
    g->add();
    self->request(hdl, ask_timeout, dump_atom::value)
      .then(
        [self, g, out](std::string& text) {
          *out = nlohmann::json::parse(text, nullptr, false);
          if (!out->is_object())
            *out = nlohmann::json::object();
          g->done();
        },
        [self, g](caf::error& err) {
          ++self->state.failed;
          log_request_failure("broker_admin", "a runtime figure", err);
          g->fail(std::move(err));
        });
  };
  auto& p = self->state.peers;
  ask(p.send, &acc->send);
  ask(p.pull, &acc->pull);
  ask(p.commit_log, &acc->log);
  ask(p.queue_service, &acc->dispatch);
  if (p.schedule)
    ask(p.schedule, &acc->schedule);
  if (p.transaction_check)
    ask(p.transaction_check, &acc->transaction);
  if (p.timer)
    ask(p.timer, &acc->timer);
  if (p.topics)
    ask(p.topics, &acc->topics);
  if (p.offsets)
    ask(p.offsets, &acc->offsets);
  if (p.groups)
    ask(p.groups, &acc->groups);
  if (p.ha)
    ask(p.ha, &acc->ha);
  g->finish = [self, acc](broker_runtime_info& out) {
    out = runtime_table(self->state, acc->send, acc->pull, acc->log,
                        acc->dispatch, acc->schedule, acc->timer, acc->ha);
    add_transaction_figures(out, acc->transaction);
    add_config_file_figures(out, {&acc->topics, &acc->offsets, &acc->groups});
  };
  g->done();
  return g->rp;
}

} // namespace

broker_admin_service_actor::behavior_type broker_admin_service(
  broker_admin_service_actor::stateful_pointer<broker_admin_state> self,
  broker_admin_options options, broker_admin_peers peers) {
  self->state.options = std::move(options);
  self->state.peers = std::move(peers);
  return {
    [self](const earliest_msg_store_time_request& req) {
      ++self->state.requests;
      return get_earliest_time(self, req);
    },
    [self](const topic_stats_request& req) {
      ++self->state.requests;
      return get_topic_stats(self, req);
    },
    [self](const consume_stats_request& req) {
      ++self->state.requests;
      return get_consume_stats(self, req);
    },
    [self](broker_runtime_info_request) {
      ++self->state.requests;
      return get_runtime_info(self);
    },
    dump_handler(self),
  };
}

} // namespace rmq
