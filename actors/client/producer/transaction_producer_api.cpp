// The transaction producer's spawn functions and blocking facade.
#include <mutex>
#include <utility>

#include "caf/scoped_actor.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/common/validators.hpp"
#include "runtime/net/blocking_ask.hpp"

#include "actors/client/producer/transaction_producer.hpp"

namespace rmq {

namespace {

constexpr const char* component = "transaction_producer";

} // namespace

caf::expected<transaction_producer_actor>
spawn_transaction_producer_actor(caf::actor_system& sys,
                                 const transaction_producer_config& cfg,
                                 std::shared_ptr<transaction_listener> listener,
                                 const client_instance& inst) {
  if (auto err = check_group(cfg.producer.group))
    return err;
  // RocketMQ sendMessageInTransaction: "tranExecutor is null".
  if (!listener)
    return make_error(errc::invalid_parameter,
                      "a transaction producer needs a listener");
  return sys.spawn(transaction_producer_main, cfg, inst, std::move(listener));
}

caf::expected<transaction_producer_actor> spawn_transaction_producer_actor(
  caf::actor_system& sys, const transaction_producer_config& cfg,
  std::shared_ptr<transaction_listener> listener) {
  if (auto err = check_group(cfg.producer.group))
    return err;
  auto inst = client_instance_for(sys, cfg.producer.client);
  if (!inst)
    return inst.error();
  auto hdl = spawn_transaction_producer_actor(sys, cfg, std::move(listener),
                                              **inst);
  // The instance lives while someone holds it: the actor does, until it
  // ends.
  if (hdl)
    (*hdl)->attach_functor([keep = std::move(*inst)] {});
  return hdl;
}

// -- facade -------------------------------------------------------------------

struct transaction_producer::impl {
  caf::actor_system* sys = nullptr;
  transaction_producer_config cfg;
  transaction_producer_actor hdl;
  std::mutex stop_mtx;
  bool stopped = false;

  /// The send's bound (with the producer facade's margin) plus the wait
  /// for the listener.
  caf::timespan ask_timeout() const {
    return 2 * cfg.producer.send_timeout + std::chrono::seconds{1}
           + cfg.local_transaction_wait;
  }

  void shutdown() {
    {
      std::lock_guard<std::mutex> guard{stop_mtx};
      if (stopped)
        return;
      stopped = true;
    }
    caf::scoped_actor self{*sys};
    auto res = blocking_ask<caf::ok_atom>(self, hdl, ask_timeout(),
                                          shutdown_atom::value);
    if (!res)
      log_request_failure(component, "shutdown of " + cfg.producer.group,
                          res.error());
  }

  ~impl() {
    shutdown();
  }
};

transaction_producer::transaction_producer(std::shared_ptr<impl> ptr)
  : impl_(std::move(ptr)) {
  // nop
}

transaction_producer_actor transaction_producer::handle() const {
  return impl_->hdl;
}

caf::expected<transaction_send_result>
transaction_producer::send_in_transaction(const client_message& msg,
                                          const std::string& arg) {
  caf::scoped_actor self{*impl_->sys};
  return blocking_ask<transaction_send_result>(
    self, impl_->hdl, impl_->ask_timeout(), send_atom::value,
    transaction_atom::value, msg, arg);
}

void transaction_producer::shutdown() {
  impl_->shutdown();
}

namespace {

transaction_producer make_facade(caf::actor_system& sys,
                                 const transaction_producer_config& cfg,
                                 transaction_producer_actor hdl) {
  auto ptr = std::make_shared<transaction_producer::impl>();
  ptr->sys = &sys;
  ptr->cfg = cfg;
  ptr->hdl = std::move(hdl);
  return transaction_producer{std::move(ptr)};
}

} // namespace

caf::expected<transaction_producer>
spawn_transaction_producer(caf::actor_system& sys,
                           const transaction_producer_config& cfg,
                           std::shared_ptr<transaction_listener> listener) {
  auto hdl = spawn_transaction_producer_actor(sys, cfg, std::move(listener));
  if (!hdl)
    return hdl.error();
  return make_facade(sys, cfg, std::move(*hdl));
}

caf::expected<transaction_producer>
spawn_transaction_producer(caf::actor_system& sys,
                           const transaction_producer_config& cfg,
                           std::shared_ptr<transaction_listener> listener,
                           const client_instance& inst) {
  auto hdl = spawn_transaction_producer_actor(sys, cfg, std::move(listener),
                                              inst);
  if (!hdl)
    return hdl.error();
  return make_facade(sys, cfg, std::move(*hdl));
}

} // namespace rmq
