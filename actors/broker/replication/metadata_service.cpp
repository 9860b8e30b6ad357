#include "actors/broker/replication/metadata_service.hpp"

#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* metadata_service_state::name = "metadata_service";

namespace {

using self_ptr
  = metadata_service_actor::stateful_pointer<metadata_service_state>;

// One ask's answers, delivered when the last table has answered (or at
// the first failure).
struct gathering {
  caf::typed_response_promise<metadata_snapshot> rp;
  metadata_snapshot snap;
  int pending = 0;
  bool failed = false;
};

using gathering_ptr = std::shared_ptr<gathering>;

// Returns the error handler of one table's answer.
auto on_error(self_ptr self, gathering_ptr g, const char* what) {
  return [self, g, what](caf::error& err) {
    if (std::exchange(g->failed, true))
      return;
    ++self->state.failures;
    log_request_failure("metadata_service", what, err);
    g->rp.deliver(std::move(err));
  };
}

void answered(gathering_ptr& g) {
  if (--g->pending == 0 && !g->failed)
    g->rp.deliver(std::move(g->snap));
}

} // namespace

nlohmann::json metadata_service_state::dump_fields() const {
  return {{"broker_name", opts.broker_name},
          {"asks", asks},
          {"refused", refused},
          {"failures", failures}};
}

metadata_service_actor::behavior_type metadata_service(
  metadata_service_actor::stateful_pointer<metadata_service_state> self,
  metadata_service_options opts) {
  self->state.opts = std::move(opts);
  return {
    [self](metadata_request& req) -> caf::result<metadata_snapshot> {
      auto& st = self->state;
      if (req.broker_name != st.opts.broker_name || req.broker_id < 1) {
        ++st.refused;
        return make_error(errc::no_permission,
                          "this is the master of " + st.opts.broker_name
                            + ", not of " + req.broker_name + " (id "
                            + std::to_string(req.broker_id) + ")");
      }
      ++st.asks;
      auto g = std::make_shared<gathering>();
      g->rp = self->make_response_promise<metadata_snapshot>();
      g->pending = 5;
      auto t = st.opts.timeout;
      self->request(st.opts.topics, t, caf::get_atom::value)
        .then(
          [g, have = req.topics](topic_config_set& x) mutable {
            if (!(x.version == have)) {
              g->snap.has_topics = true;
              g->snap.topics = std::move(x);
            }
            answered(g);
          },
          on_error(self, g, "the topics"));
      self->request(st.opts.groups, t, caf::get_atom::value)
        .then(
          [g, have = req.groups](subscription_group_set& x) mutable {
            if (!(x.version == have)) {
              g->snap.has_groups = true;
              g->snap.groups = std::move(x);
            }
            answered(g);
          },
          on_error(self, g, "the subscription groups"));
      self->request(st.opts.offsets, t, list_offsets_request{})
        .then(
          [g](std::vector<consumer_offsets>& x) mutable {
            g->snap.offsets = std::move(x);
            answered(g);
          },
          on_error(self, g, "the consumer offsets"));
      self->request(st.opts.schedule, t, caf::get_atom::value)
        .then(
          [g](schedule_progress& x) mutable {
            g->snap.schedule = std::move(x);
            answered(g);
          },
          on_error(self, g, "the delay levels"));
      self->request(st.opts.timer, t, caf::get_atom::value)
        .then(
          [g](timer_progress& x) mutable {
            g->snap.timer = x;
            answered(g);
          },
          on_error(self, g, "the timer"));
      return g->rp;
    },
    dump_handler(self),
  };
}

} // namespace rmq
