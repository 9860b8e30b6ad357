// The lite pull consumer's facade (actors/client/consumer/consumer.hpp): spawns the
// actor on the shared client instance and turns its requests into blocking
// calls for plain code.
#include <chrono>
#include <utility>

#include "caf/exit_reason.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/client/allocate_strategy.hpp"
#include "runtime/common/validators.hpp"
#include "runtime/message/subscription_expression.hpp"

#include "actors/client/consumer/consumer.hpp"
#include "actors/client/consumer/lite_pull_consumer.hpp"

namespace rmq {

struct lite_pull_consumer::impl {
  caf::actor_system* sys = nullptr;
  lite_pull_consumer_actor hdl;
  caf::timespan request_timeout;
  bool stopped = false;

  ~impl() {
    // A consumer nobody shut down must not keep the actor system alive.
    if (!stopped)
      caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
  }

  /// Asks the actor and waits up to `timeout`.
  template <class Result, class... Ts>
  caf::expected<Result> ask(caf::timespan timeout, Ts&&... xs) {
    caf::scoped_actor self{*sys};
    caf::expected<Result> out{caf::make_error(caf::sec::request_timeout)};
    self->request(hdl, timeout, std::forward<Ts>(xs)...)
      .receive([&](Result& x) { out = std::move(x); },
               [&](caf::error& err) { out = std::move(err); });
    return out;
  }
};

lite_pull_consumer::lite_pull_consumer(std::shared_ptr<impl> ptr)
  : impl_(std::move(ptr)) {
}

lite_pull_consumer_actor lite_pull_consumer::handle() const {
  return impl_->hdl;
}

caf::expected<std::vector<received_message>>
lite_pull_consumer::poll(caf::timespan timeout) {
  return impl_->ask<std::vector<received_message>>(
    timeout + impl_->request_timeout, poll_atom::value, timeout);
}

caf::error lite_pull_consumer::assign(const std::vector<message_queue>& qs) {
  auto res = impl_->ask<caf::ok_atom>(impl_->request_timeout,
                                      assign_atom::value, qs);
  return res ? caf::error{} : res.error();
}

caf::error lite_pull_consumer::seek(const message_queue& queue,
                                    int64_t offset) {
  auto res = impl_->ask<caf::ok_atom>(impl_->request_timeout, seek_atom::value,
                                      queue, offset);
  return res ? caf::error{} : res.error();
}

caf::error lite_pull_consumer::commit() {
  auto res = impl_->ask<caf::ok_atom>(impl_->request_timeout * 2,
                                      commit_atom::value);
  return res ? caf::error{} : res.error();
}

void lite_pull_consumer::shutdown() {
  if (impl_->stopped)
    return;
  // Commit plus unregistration: each step has its own request bound.
  auto res = impl_->ask<caf::ok_atom>(impl_->request_timeout * 4,
                                      shutdown_atom::value);
  if (!res)
    caf::anon_send_exit(impl_->hdl, caf::exit_reason::user_shutdown);
  impl_->stopped = true;
}

caf::expected<lite_pull_consumer>
spawn_lite_pull_consumer(caf::actor_system& sys,
                         const lite_pull_consumer_config& cfg) {
  // RocketMQ checkConfig: Validators.checkGroup.
  if (auto err = check_group(cfg.group))
    return err;
  if (cfg.subscriptions.empty() && cfg.assigned.empty())
    return make_error(errc::invalid_parameter,
                      "subscribe to a topic or assign queues");
  if (cfg.pull_batch_size <= 0 || cfg.buffer_max_messages == 0)
    return make_error(errc::invalid_parameter,
                      "pull batch size and buffer must be positive");
  if (!find_allocate_strategy(cfg.allocate_strategy))
    return make_error(errc::invalid_parameter, "unknown allocate strategy '"
                                                 + cfg.allocate_strategy + "'");
  for (auto& s : cfg.subscriptions) {
    if (s.topic.empty())
      return make_error(errc::invalid_parameter, "subscription without topic");
    if (auto expr = parse_subscription_expression(s.expression); !expr)
      return expr.error();
  }
  auto inst = client_instance_for(sys, cfg.client);
  if (!inst)
    return inst.error();
  lite_pull_consumer_options opts;
  opts.cfg = cfg;
  opts.instance = *inst;
  auto ptr = std::make_shared<lite_pull_consumer::impl>();
  ptr->sys = &sys;
  ptr->request_timeout = cfg.client.request_timeout + std::chrono::seconds{2};
  // Broadcasting reads and writes the local offsets file: file I/O runs
  // only in detached actors.
  if (cfg.model == message_model::broadcasting)
    ptr->hdl = sys.spawn<caf::detached>(lite_pull_consumer_main,
                                        std::move(opts));
  else
    ptr->hdl = sys.spawn(lite_pull_consumer_main, std::move(opts));
  return lite_pull_consumer{std::move(ptr)};
}

} // namespace rmq
