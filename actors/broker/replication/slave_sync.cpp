#include "actors/broker/replication/slave_sync.hpp"

#include <utility>

#include <nlohmann/json.hpp>

#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* slave_sync_state::name = "slave_sync";

namespace {

using self_ptr = slave_sync_actor::stateful_pointer<slave_sync_state>;

void arm(self_ptr self) {
  auto& st = self->state;
  if (st.armed || !st.master)
    return;
  st.armed = true;
  self->delayed_send(self, st.opts.interval, tick_atom::value);
}

// Hands each table its part of the master's metadata.
void apply(slave_sync_state& st, metadata_snapshot& snap) {
  if (snap.has_topics) {
    st.topics = snap.topics.version;
    ++st.topic_syncs;
    caf::anon_send(st.opts.topics, sync_atom::value, std::move(snap.topics));
  }
  if (snap.has_groups) {
    st.groups = snap.groups.version;
    ++st.group_syncs;
    caf::anon_send(st.opts.groups, sync_atom::value, std::move(snap.groups));
  }
  caf::anon_send(st.opts.offsets, sync_atom::value, std::move(snap.offsets));
  caf::anon_send(st.opts.schedule, sync_atom::value, std::move(snap.schedule));
  caf::anon_send(st.opts.timer, sync_atom::value, snap.timer);
}

void ask(self_ptr self) {
  auto& st = self->state;
  if (st.asking || !st.master)
    return;
  st.asking = true;
  auto gen = st.generation;
  metadata_request req{st.opts.broker_name, st.opts.broker_id, st.topics,
                       st.groups};
  self->request(st.master, st.opts.timeout, std::move(req))
    .then(
      [self, gen](metadata_snapshot& snap) {
        auto& st = self->state;
        if (gen != st.generation)
          return; // from a master since lost
        st.asking = false;
        ++st.syncs;
        if (!st.last_error.empty())
          RMQ_INFO("slave_sync", "the master's metadata comes again");
        st.last_error.clear();
        apply(st, snap);
        arm(self);
      },
      [self, gen](caf::error& err) {
        auto& st = self->state;
        if (gen != st.generation)
          return;
        st.asking = false;
        ++st.failures;
        auto why = describe(err);
        if (why != st.last_error)
          RMQ_WARN("slave_sync", "asking the master for its metadata: "
                                   << why << "; asking again");
        st.last_error = std::move(why);
        arm(self);
      });
}

} // namespace

nlohmann::json slave_sync_state::dump_fields() const {
  return {{"broker_name", opts.broker_name},
          {"broker_id", opts.broker_id},
          {"connected", static_cast<bool>(master)},
          {"interval_ms",
           std::chrono::duration_cast<std::chrono::milliseconds>(opts.interval)
             .count()},
          {"topics_version", topics},
          {"groups_version", groups},
          {"syncs", syncs},
          {"topic_syncs", topic_syncs},
          {"group_syncs", group_syncs},
          {"failures", failures},
          {"last_error", last_error}};
}

slave_sync_actor::behavior_type
slave_sync(slave_sync_actor::stateful_pointer<slave_sync_state> self,
           slave_sync_options opts) {
  self->state.opts = std::move(opts);
  return {
    [self](caf::put_atom, metadata_source_actor& master) {
      auto& st = self->state;
      if (master == st.master)
        return;
      // A lost master's answer on its way no longer counts.
      ++st.generation;
      st.asking = false;
      st.master = std::move(master);
      ask(self);
    },
    [self](tick_atom) {
      self->state.armed = false;
      ask(self);
    },
    dump_handler(self),
  };
}

} // namespace rmq
