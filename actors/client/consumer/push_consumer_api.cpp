// spawn_push_consumer and the blocking push_consumer facade
// (actors/client/consumer/consumer.hpp).
#include <utility>

#include "caf/scoped_actor.hpp"
#include "caf/send.hpp"

#include "actors/client/consumer/consumer.hpp"
#include "actors/client/consumer/push_consumer.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"

namespace rmq {

struct push_consumer::impl {
  caf::actor_system* sys = nullptr;
  push_consumer_actor hdl;
  std::shared_ptr<client_instance> instance;
  bool stopped = false;

  ~impl() {
    // A consumer nobody shut down still must not outlive its program.
    if (!stopped && hdl)
      caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
  }
};

push_consumer::push_consumer(std::shared_ptr<impl> ptr)
  : impl_(std::move(ptr)) {
  // nop
}

push_consumer_actor push_consumer::handle() const {
  return impl_->hdl;
}

void push_consumer::shutdown() {
  if (impl_->stopped)
    return;
  impl_->stopped = true;
  caf::scoped_actor self{*impl_->sys};
  self->request(impl_->hdl, caf::infinite, shutdown_atom::value)
    .receive([](caf::ok_atom) {},
             [](const caf::error& err) {
               RMQ_WARN("push_consumer", "shutdown: " << describe(err));
             });
}

namespace {

caf::expected<push_consumer> spawn_with(caf::actor_system& sys,
                                        push_consumer_options opts) {
  auto inst = client_instance_for(sys, opts.cfg.client);
  if (!inst)
    return inst.error();
  opts.instance = *inst;
  auto hdl = spawn_push_consumer_actor(sys, std::move(opts));
  if (!hdl)
    return hdl.error();
  auto ptr = std::make_shared<push_consumer::impl>();
  ptr->sys = &sys;
  ptr->hdl = *hdl;
  ptr->instance = *inst;
  return push_consumer{std::move(ptr)};
}

} // namespace

caf::expected<push_consumer>
spawn_push_consumer(caf::actor_system& sys, const push_consumer_config& cfg,
                    concurrent_listener listener) {
  push_consumer_options opts;
  opts.cfg = cfg;
  opts.concurrent = std::move(listener);
  return spawn_with(sys, std::move(opts));
}

caf::expected<push_consumer>
spawn_push_consumer(caf::actor_system& sys, const push_consumer_config& cfg,
                    orderly_listener listener) {
  push_consumer_options opts;
  opts.cfg = cfg;
  opts.orderly = std::move(listener);
  return spawn_with(sys, std::move(opts));
}

} // namespace rmq
