#include "actors/broker/transaction/end_transaction_processor.hpp"

#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/broker/transaction_rules.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/message_properties.hpp"
#include "runtime/message/message_record.hpp"
#include "runtime/storage/message_store.hpp"

#include "actors/broker/processor/send_processor.hpp"
#include "actors/common/dump.hpp"

namespace rmq {

const char* end_transaction_processor_state::name = "end_transaction_processor";

namespace {

using self_ptr = end_transaction_processor_actor::stateful_pointer<
  end_transaction_processor_state>;
using promise = caf::typed_response_promise<caf::ok_atom>;

// One end in progress: the request and the half record it names.
struct job {
  end_transaction_request req;
  std::string record;
  record_view rec;
  std::string key;
  promise rp;
};

using job_ptr = std::shared_ptr<job>;

void run(self_ptr self, job_ptr j);

void remember(end_transaction_processor_state& st, const std::string& key,
              transaction_state outcome) {
  auto [i, added] = st.outcomes.emplace(key, static_cast<uint8_t>(outcome));
  if (!added) {
    // A commit stays a commit: its message is out.
    if (i->second != static_cast<uint8_t>(transaction_state::commit))
      i->second = static_cast<uint8_t>(outcome);
    return;
  }
  st.outcome_order.push_back(key);
  while (st.outcome_order.size() > st.options.remembered) {
    st.outcomes.erase(st.outcome_order.front());
    st.outcome_order.pop_front();
  }
}

// Answers `j` and starts the next end of the same transaction.
void finish(self_ptr self, job_ptr j, caf::error err, bool refused = false) {
  auto& st = self->state;
  if (err) {
    ++(refused ? st.refused : st.failures);
    j->rp.deliver(std::move(err));
  } else {
    j->rp.deliver(caf::ok_atom::value);
  }
  auto i = st.busy.find(j->key);
  if (i == st.busy.end())
    return;
  if (i->second.empty()) {
    st.busy.erase(i);
    return;
  }
  auto next = std::make_shared<job>();
  auto& w = i->second.front();
  next->req = std::move(w.req);
  next->record = std::move(w.record);
  next->rp = std::move(w.rp);
  next->key = j->key;
  i->second.pop_front();
  // The record was decoded when it was queued.
  decode_record(next->record.data(), next->record.size(), next->rec, false);
  run(self, next);
}

void put(self_ptr self, store_message msg, const char* what,
         std::function<void(caf::error)> then) {
  auto& st = self->state;
  std::vector<store_message> batch;
  batch.push_back(std::move(msg));
  self
    ->request(st.commit_log, st.options.request_timeout, caf::put_atom::value,
              std::move(batch))
    .then(
      [what, then](std::vector<put_result>& res) {
        if (res.size() != 1) {
          then(make_error(errc::system_error,
                          std::string{what} + ": the store answered "
                            + std::to_string(res.size()) + " results"));
          return;
        }
        if (!is_stored(res.front())) {
          log_request_failure("end_transaction", what, res.front().error);
          then(to_send_error(res.front().error));
          return;
        }
        then(caf::none);
      },
      [what, then](caf::error& err) {
        log_request_failure("end_transaction", what, err);
        then(to_send_error(err));
      });
}

// The op record resolves the half for the check service and any restart.
void write_op(self_ptr self, job_ptr j, transaction_state outcome) {
  auto& st = self->state;
  auto op = make_op_message(j->rec.queue_offset, j->key, st.now_ms());
  put(self, std::move(op), "writing the op record",
      [self, j, outcome](caf::error err) {
        if (!err)
          remember(self->state, j->key, outcome);
        finish(self, j, std::move(err));
      });
}

// Whether `res` holds a committed copy of the half in `j`: its real
// queue, its UNIQ_KEY, the commit type.
bool holds_commit(const query_message_result& res, const store_message& msg,
                  const std::string& key) {
  size_t pos = 0;
  while (pos < res.buffer.size()) {
    record_view rec;
    if (decode_record(res.buffer.data() + pos, res.buffer.size() - pos, rec,
                      false)
        != decode_status::ok)
      return false;
    pos += static_cast<size_t>(rec.total_size);
    if (rec.topic == msg.topic && rec.queue_id == msg.queue_id
        && (rec.sys_flag & sys_flag::transaction_mask)
             == sys_flag::transaction_commit
        && find_property(rec.properties, property_uniq_key) == key)
      return true;
  }
  return false;
}

void put_real(self_ptr self, job_ptr j, std::shared_ptr<store_message> real) {
  put(self, std::move(*real), "putting the committed message",
      [self, j](caf::error err) {
        if (err) {
          finish(self, j, std::move(err));
          return;
        }
        ++self->state.commits;
        // Known before the op record is: a second commit arriving
        // meanwhile must not put it again.
        remember(self->state, j->key, transaction_state::commit);
        write_op(self, j, transaction_state::commit);
      });
}

// No committed copy exists: unless the op records say the transaction
// ended (a rollback or a discard this processor no longer remembers, e.g.
// from before a restart), the message goes out now.
void put_commit(self_ptr self, job_ptr j, std::shared_ptr<store_message> real) {
  auto& st = self->state;
  self
    ->request(st.checks, st.options.request_timeout, resolved_atom::value,
              j->key, j->rec.queue_offset)
    .then(
      [self, j, real](bool resolved) {
        if (!resolved) {
          put_real(self, j, real);
          return;
        }
        RMQ_WARN("end_transaction", "commit of " << j->key
                                                 << " refused: it was rolled "
                                                    "back or discarded");
        finish(self, j,
               make_error(errc::system_error,
                          "the transaction of " + j->key
                            + " was rolled back or discarded before"),
               true);
      },
      [self, j](caf::error& err) {
        log_request_failure("end_transaction",
                            "asking the check service about the transaction",
                            err);
        finish(self, j, to_send_error(err));
      });
}

void commit(self_ptr self, job_ptr j) {
  auto& st = self->state;
  auto msg = from_half(j->rec);
  if (!msg) {
    finish(self, j, make_error(errc::system_error, error_detail(msg.error())));
    return;
  }
  auto real = std::make_shared<store_message>(std::move(*msg));
  // A commit before a restart (the op record may be missing) left its copy
  // in the real topic; the index has it after recovery.
  query_message_request q;
  q.topic = real->topic;
  q.key = j->key;
  q.max_num = 32;
  self->request(st.queue_service, st.options.request_timeout, std::move(q))
    .then(
      [self, j, real](query_message_result& res) {
        auto& st = self->state;
        if (holds_commit(res, *real, j->key)) {
          ++st.repeated;
          ++st.verified;
          RMQ_INFO("end_transaction", "transaction "
                                        << j->key
                                        << " was committed "
                                           "before: not put again");
          write_op(self, j, transaction_state::commit);
          return;
        }
        put_commit(self, j, real);
      },
      [self, j](caf::error& err) {
        log_request_failure("end_transaction", "looking the commit up", err);
        finish(self, j, to_send_error(err));
      });
}

// checkPrepareMessage and rejectCommitOrRollback, then the outcome.
void run(self_ptr self, job_ptr j) {
  auto& st = self->state;
  auto& rec = j->rec;
  auto& req = j->req;
  auto refuse = [&](std::string text) {
    finish(self, j, make_error(errc::system_error, std::move(text)), true);
  };
  if (rec.topic != trans_half_topic)
    return refuse("Find prepared transaction message failed: the record at "
                  + std::to_string(req.commit_log_offset)
                  + " is not a half message");
  if (find_property(rec.properties, property_producer_group)
      != req.producer_group)
    return refuse("The producer group wrong");
  if (rec.queue_offset != req.tran_state_table_offset)
    return refuse("The transaction state table offset wrong");
  if (rec.phys_offset != req.commit_log_offset)
    return refuse("The commit log offset wrong");
  if (!req.from_transaction_check
      && !find_property(rec.properties, property_check_immunity_time).empty()
      && st.now_ms() - rec.born_timestamp > check_immunity_ms(
           rec.properties, st.options.transaction_timeout_ms))
    return refuse("ILLEGAL_OPERATION: the transaction of " + j->key
                  + " ended after its check immunity time");
  auto known = st.outcomes.find(j->key);
  auto state = static_cast<transaction_state>(req.state);
  if (state == transaction_state::rollback) {
    ++st.rollbacks;
    write_op(self, j, transaction_state::rollback);
    return;
  }
  if (known != st.outcomes.end()) {
    if (known->second == static_cast<uint8_t>(transaction_state::rollback))
      return refuse("the transaction of " + j->key + " was rolled back");
    // Committed before: its copy is out; resolve this half too.
    ++st.repeated;
    write_op(self, j, transaction_state::commit);
    return;
  }
  commit(self, j);
}

// Decodes the half record and runs the end, or queues it behind an end of
// the same transaction that is in flight.
void start(self_ptr self, end_transaction_request req, std::string record,
           promise rp) {
  auto& st = self->state;
  auto j = std::make_shared<job>();
  j->req = std::move(req);
  j->record = std::move(record);
  j->rp = std::move(rp);
  if (decode_record(j->record.data(), j->record.size(), j->rec, true)
      != decode_status::ok) {
    ++st.refused;
    j->rp.deliver(make_error(errc::system_error,
                             "Find prepared transaction message failed: the "
                             "record at "
                               + std::to_string(j->req.commit_log_offset)
                               + " cannot be decoded"));
    return;
  }
  j->key = std::string{find_property(j->rec.properties, property_uniq_key)};
  if (j->key.empty())
    j->key = "@" + std::to_string(j->rec.phys_offset);
  auto i = st.busy.find(j->key);
  if (i != st.busy.end()) {
    i->second.push_back({std::move(j->req), std::move(j->record), j->rp});
    return;
  }
  st.busy.emplace(j->key, std::deque<end_transaction_waiter>{});
  run(self, j);
}

} // namespace

int64_t end_transaction_processor_state::now_ms() const {
  return options.wall_clock.now_ms();
}

nlohmann::json end_transaction_processor_state::dump_fields() const {
  size_t queued = 0;
  for (auto& kv : busy)
    queued += kv.second.size();
  return {
    {"slave", options.slave},
    {"transaction_timeout_ms", options.transaction_timeout_ms},
    {"requests", requests},
    {"commits", commits},
    {"rollbacks", rollbacks},
    {"unknowns", unknowns},
    {"repeated", repeated},
    {"verified", verified},
    {"refused", refused},
    {"failures", failures},
    {"in_flight", busy.size()},
    {"queued", queued},
    {"remembered", outcomes.size()},
  };
}

end_transaction_processor_actor::behavior_type
end_transaction_processor(end_transaction_processor_actor::stateful_pointer<
                            end_transaction_processor_state>
                            self,
                          end_transaction_processor_options options,
                          queue_service_actor queue_service,
                          commit_log_writer_actor commit_log,
                          transaction_check_service_actor checks) {
  auto& st = self->state;
  st.options = std::move(options);
  st.queue_service = std::move(queue_service);
  st.commit_log = std::move(commit_log);
  st.checks = std::move(checks);
  return {
    [self](end_transaction_request& req) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      ++st.requests;
      if (st.options.slave) {
        ++st.refused;
        return make_error(errc::slave_not_available,
                          "END_TRANSACTION on a slave");
      }
      switch (static_cast<transaction_state>(req.state)) {
        case transaction_state::unknown:
          // Nothing to do: the check service asks again later.
          ++st.unknowns;
          return caf::ok_atom::value;
        case transaction_state::commit:
        case transaction_state::rollback:
          break;
        default:
          ++st.refused;
          return make_error(errc::invalid_parameter,
                            "unknown transaction state "
                              + std::to_string(req.state));
      }
      auto rp = self->make_response_promise<caf::ok_atom>();
      auto offset = req.commit_log_offset;
      self
        ->request(st.queue_service, st.options.request_timeout,
                  caf::get_atom::value, offset)
        .then(
          [self, req, rp](std::string& record) mutable {
            start(self, std::move(req), std::move(record), std::move(rp));
          },
          [self, rp, offset](caf::error& err) mutable {
            ++self->state.refused;
            log_request_failure("end_transaction", "reading the half message",
                                err);
            rp.deliver(make_error(errc::system_error,
                                  "Find prepared transaction message failed "
                                  "at "
                                    + std::to_string(offset) + ": "
                                    + describe(err)));
          });
      return rp;
    },
    dump_handler(self),
  };
}

} // namespace rmq
