// The re-put pass shared by the services that hold messages back in a
// system topic (the schedule service's delay levels, the timer service's
// wheel): put the due messages to their real topics through the commit-log
// writer, and after a start first look each one up in its real queue, so
// that the last pass before a crash delivers nothing twice. Helpers over
// the caller's pass, not an actor: each service keeps its own progress,
// counters and retries, and passes them in as callbacks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "caf/atom.hpp"
#include "caf/error.hpp"
#include "caf/timespan.hpp"

#include "messages/store/store.hpp"
#include "messages/store/store_actors.hpp"
#include "runtime/broker/delivered_copy.hpp"
#include "runtime/common/request_failure.hpp"

namespace rmq {

/// One message of a pass: read from the system topic and rebuilt for its
/// real topic. A service's item derives from it and adds where the record
/// waited.
struct due_message {
  /// Store timestamp of the waiting record: a delivered copy is stored at
  /// or after it.
  int64_t store_ts = 0;
  /// The message for its real topic.
  store_message msg;
  /// Delivered, found delivered, or dropped.
  bool done = false;
};

/// Re-puts the messages of `p->items` that are not done in one batch
/// through `commit_log`, marks the stored ones done, and then calls
/// `done(stored)` with their count, also after a failed request (the
/// messages stay not done; the failure is logged for `component`). Calls
/// `done(0)` at once when nothing is left to put. `Pass` has `items`, a
/// vector of types derived from `due_message`.
template <class Self, class Pass, class Done>
void put_due_messages(Self self, const commit_log_writer_actor& commit_log,
                      caf::timespan timeout, const char* component,
                      std::shared_ptr<Pass> p, Done done) {
  std::vector<store_message> batch;
  std::vector<size_t> which;
  for (size_t i = 0; i < p->items.size(); ++i)
    if (!p->items[i].done) {
      // A retry reads the records again: the pass no longer needs them.
      batch.push_back(std::move(p->items[i].msg));
      which.push_back(i);
    }
  if (batch.empty()) {
    done(int64_t{0});
    return;
  }
  self->request(commit_log, timeout, caf::put_atom::value, std::move(batch))
    .then(
      [p, which, component, done](std::vector<put_result>& res) mutable {
        int64_t stored = 0;
        for (size_t i = 0; i < which.size() && i < res.size(); ++i) {
          if (is_stored(res[i])) {
            p->items[which[i]].done = true;
            ++stored;
          } else {
            log_request_failure(component, "re-putting a due message",
                                res[i].error);
          }
        }
        done(stored);
      },
      [component, done](caf::error& err) mutable {
        log_request_failure(component, "re-putting due messages", err);
        done(int64_t{0});
      });
}

/// Looks each message of `p->items` that is not done and has a UNIQ_KEY
/// up in its real queue through `queue service` (the store's index), marks
/// the ones found there done and calls `found(item)` for each, then calls
/// `done(failed, any_found)` once every answer is in: `failed` if a lookup
/// failed (logged for `component`; the caller retries the pass). Calls
/// `done(false, false)` at once when there is nothing to look up.
template <class Self, class Pass, class Found, class Done>
void find_delivered_copies(Self self, const queue_service_actor& queue_service,
                           caf::timespan timeout, const char* component,
                           std::shared_ptr<Pass> p, Found found, Done done) {
  std::vector<size_t> asks;
  for (size_t i = 0; i < p->items.size(); ++i)
    if (!p->items[i].done && has_uniq_key(p->items[i].msg))
      asks.push_back(i);
  if (asks.empty()) {
    done(false, false);
    return;
  }
  struct tally {
    size_t pending = 0;
    bool failed = false;
    bool found = false;
  };
  auto t = std::make_shared<tally>();
  t->pending = asks.size();
  auto one_done = [t, done]() mutable {
    if (--t->pending == 0)
      done(t->failed, t->found);
  };
  for (auto i : asks) {
    self->request(queue_service, timeout, delivered_copy_query(p->items[i].msg))
      .then(
        [p, t, i, found, one_done](query_message_result& res) mutable {
          auto& it = p->items[i];
          if (holds_delivered_copy(res, it.msg, it.store_ts)) {
            it.done = true;
            t->found = true;
            found(it);
          }
          one_done();
        },
        [t, component, one_done](caf::error& err) mutable {
          log_request_failure(component, "checking the real queue", err);
          t->failed = true;
          one_done();
        });
  }
}

} // namespace rmq
