#include "actors/broker/table/consumer_offset_table.hpp"

#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "caf/exit_reason.hpp"
#include "caf/send.hpp"
#include "caf/spawn_options.hpp"
#include "caf/typed_response_promise.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"

#include "actors/common/dump.hpp"
#include "actors/common/json_file_writer.hpp"

namespace rmq {

const char* consumer_offset_state::name = "consumer_offset_table";

namespace {

std::string key_of(const std::string& topic, const std::string& group) {
  return topic + "@" + group;
}

int64_t to_ms(caf::timespan x) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(x).count();
}

} // namespace

nlohmann::json consumer_offsets_to_json(const consumer_offset_map& table) {
  auto offsets = nlohmann::json::object();
  for (auto& [key, queues] : table) {
    auto entry = nlohmann::json::object();
    for (auto& [queue, offset] : queues)
      entry[std::to_string(queue)] = offset;
    offsets[key] = std::move(entry);
  }
  return nlohmann::json{{"offsetTable", std::move(offsets)}};
}

std::string consumer_offsets_to_text(const consumer_offset_map& table) {
  return consumer_offsets_to_json(table).dump(2);
}

caf::expected<consumer_offset_map>
consumer_offsets_from_text(const std::string& text) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded())
    return make_error(errc::corrupt_data, "not a JSON object");
  return consumer_offsets_from_json(doc);
}

caf::expected<consumer_offset_map>
consumer_offsets_from_json(const nlohmann::json& doc) {
  auto corrupt = [](std::string why) {
    return make_error(errc::corrupt_data, std::move(why));
  };
  if (!doc.is_object())
    return corrupt("not a JSON object");
  consumer_offset_map result;
  auto i = doc.find("offsetTable");
  if (i == doc.end())
    return result;
  if (!i->is_object())
    return corrupt("offsetTable is not an object");
  for (auto& [key, queues] : i->items()) {
    if (key.find('@') == std::string::npos || !queues.is_object())
      return corrupt("bad entry " + key);
    auto& entry = result[key];
    for (auto& [queue, offset] : queues.items()) {
      if (!offset.is_number_integer())
        return corrupt("bad offset of " + key + " queue " + queue);
      char* end = nullptr;
      auto id = std::strtol(queue.c_str(), &end, 10);
      if (queue.empty() || *end != '\0' || id < 0 || id > INT32_MAX)
        return corrupt("bad queue id " + queue + " of " + key);
      entry[static_cast<int32_t>(id)] = offset.get<int64_t>();
    }
  }
  return result;
}

consumer_offset_table_actor::behavior_type consumer_offset_table(
  consumer_offset_table_actor::stateful_pointer<consumer_offset_state> self,
  consumer_offset_config config, queue_service_actor queue_service) {
  auto& st = self->state;
  st.config = std::move(config);
  // -- load -------------------------------------------------------------------
  if (!st.config.path.empty()) {
    auto loaded = json_file::load_config(
      st.config.path, "offsets",
      "group offsets restart from each group's consume-from rule",
      [&](const nlohmann::json& doc) -> caf::error {
        if (doc.is_null()) // no file yet
          return {};
        auto table = consumer_offsets_from_json(doc);
        if (!table)
          return std::move(table.error());
        st.table = std::move(*table);
        return {};
      });
    st.corrupt_copy = std::move(loaded.corrupt_copy);
    if (loaded.blocked) {
      // Offsets can always be committed again by their consumers: go on
      // in memory; every persist fails (it would overwrite the file).
      st.last_error = describe(loaded.blocked);
      st.blocked = std::move(loaded.blocked);
    }
  }
  if (!st.config.path.empty()) {
    auto owner = caf::actor_cast<caf::actor>(self);
    st.writer = st.config.detach_writer
                  ? self->spawn<caf::detached>(json_file_writer, st.config.path,
                                               owner)
                  : self->spawn(json_file_writer, st.config.path, owner);
  }
  // The table as file text (names are checked before they get here).
  auto render = [self] {
    return json_file::render(consumer_offsets_to_json(self->state.table),
                             self->state.config.path);
  };
  // Asks the writer to write the table; `done` gets the outcome.
  auto persist = [self, render](auto done) {
    auto& st = self->state;
    if (st.blocked) {
      done(caf::error{st.blocked});
      return;
    }
    auto text = render();
    if (!text) {
      st.last_error = describe(text.error());
      done(std::move(text.error()));
      return;
    }
    st.dirty = false;
    self
      ->request(st.writer, caf::infinite, caf::put_atom::value,
                std::move(*text))
      .then(
        [self, done]() mutable {
          auto& st = self->state;
          ++st.persists;
          if (!st.last_error.empty())
            RMQ_WARN("offsets", "persisted again after failures (last: "
                                  << st.last_error << ")");
          st.last_error.clear();
          done(caf::error{});
        },
        [self, done](caf::error& err) mutable {
          auto& st = self->state;
          // What failed to land is written again at the next tick.
          st.dirty = true;
          st.last_error = describe(err);
          RMQ_ERROR("offsets", "persist failed: " << st.last_error);
          done(std::move(err));
        });
  };
  auto arm = [self] {
    if (self->state.config.flush_interval.count() > 0)
      self->delayed_send(self, self->state.config.flush_interval,
                         tick_atom::value);
  };
  arm();
  // Shutdown persists what the last interval changed: the writer takes
  // this last write before it sees the table down.
  self->set_exit_handler([self, render](caf::exit_msg& msg) {
    auto& st = self->state;
    if (st.writer && st.dirty && !st.blocked)
      if (auto text = render())
        caf::anon_send(st.writer, caf::put_atom::value, std::move(*text));
    self->quit(msg.reason);
  });
  return {
    [=](const query_offset_request& req) -> caf::result<int64_t> {
      auto& table = self->state.table;
      auto i = table.find(key_of(req.topic, req.consumer_group));
      if (i != table.end()) {
        auto j = i->second.find(req.queue_id);
        if (j != i->second.end() && j->second >= 0)
          return j->second;
      }
      auto not_found = [req] {
        return make_error(errc::query_not_found,
                          "no offset of group " + req.consumer_group + " for "
                            + req.topic + "/" + std::to_string(req.queue_id));
      };
      if (!req.set_zero_if_not_found || !queue_service)
        return not_found();
      // A new group starts at 0 while the queue still holds message 0
      // (RocketMQ: min offset <= 0 and message 0 in memory; our store has
      // no page-cache test, a stored message counts).
      auto rp = self->make_response_promise<int64_t>();
      self
        ->request(queue_service, self->state.config.request_timeout,
                  get_offset_request{req.topic, req.queue_id})
        .then(
          [=](const queue_offsets& qo) mutable {
            if (qo.min_offset <= 0 && qo.max_offset > 0)
              rp.deliver(int64_t{0});
            else
              rp.deliver(not_found());
          },
          [=](caf::error& err) mutable {
            log_request_failure("offsets", "queue offsets of " + req.topic,
                                err);
            rp.deliver(std::move(err));
          });
      return rp;
    },
    [=](const update_offset_request& req) {
      auto& st = self->state;
      st.table[key_of(req.topic, req.consumer_group)][req.queue_id]
        = req.commit_offset;
      st.dirty = true;
      ++st.updates;
    },
    [=](sync_atom, const std::vector<consumer_offsets>& master) {
      // Only forward: a consumer that committed here while the master was
      // away keeps its place when the master's older offsets come back.
      auto& st = self->state;
      for (auto& entry : master) {
        auto& queues = st.table[key_of(entry.topic, entry.consumer_group)];
        for (auto& [queue, offset] : entry.offsets) {
          auto i = queues.find(queue);
          if (i == queues.end() || i->second < offset) {
            queues[queue] = offset;
            st.dirty = true;
            ++st.synced;
          }
        }
      }
    },
    [=](caf::delete_atom, const std::string& topic) {
      auto& table = self->state.table;
      int64_t removed = 0;
      for (auto i = table.begin(); i != table.end();) {
        if (i->first.compare(0, topic.size() + 1, topic + "@") == 0) {
          i = table.erase(i);
          ++removed;
        } else {
          ++i;
        }
      }
      if (removed > 0)
        self->state.dirty = true;
      return removed;
    },
    [=](const list_offsets_request& req) {
      std::vector<consumer_offsets> result;
      for (auto& [key, queues] : self->state.table) {
        auto at = key.find('@');
        auto topic = key.substr(0, at);
        auto group = key.substr(at + 1);
        if ((!req.consumer_group.empty() && group != req.consumer_group)
            || (!req.topic.empty() && topic != req.topic))
          continue;
        result.push_back(consumer_offsets{group, topic, queues});
      }
      return result;
    },
    [=](flush_atom) -> caf::result<int64_t> {
      auto& st = self->state;
      auto entries = static_cast<int64_t>(st.table.size());
      if (!st.writer)
        return entries;
      // An explicit flush always writes, after any write on its way.
      auto rp = self->make_response_promise<int64_t>();
      persist([rp, entries](caf::error err) mutable {
        if (err)
          rp.deliver(std::move(err));
        else
          rp.deliver(entries);
      });
      return rp;
    },
    [=](tick_atom) {
      auto& st = self->state;
      if (st.writer && st.dirty && !st.writing) {
        st.writing = true;
        persist([self](const caf::error&) { self->state.writing = false; });
      }
      arm();
    },
    dump_handler(self),
  };
}

nlohmann::json consumer_offset_state::dump_fields() const {
  return {
    {"path", config.path},
    {"flush_interval_ms", to_ms(config.flush_interval)},
    {"entries", table.size()},
    {"dirty", dirty},
    {"writing", writing},
    {"updates", updates},
    {"synced", synced},
    {"persists", persists},
    {"last_error", last_error},
    {"corrupt_copy", corrupt_copy},
  };
}

} // namespace rmq
