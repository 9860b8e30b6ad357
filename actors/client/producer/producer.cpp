#include "actors/client/producer/producer.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "caf/event_based_actor.hpp"
#include "caf/exit_reason.hpp"
#include "caf/scoped_actor.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/request_failure.hpp"
#include "runtime/common/validators.hpp"
#include "runtime/net/blocking_ask.hpp"

#include "actors/client/producer/send_loop.hpp"

namespace rmq {

namespace {

constexpr const char* component = "producer";

/// Java's String.hashCode, so a key picks the same queue as in RocketMQ.
int32_t java_hash(const std::string& s) {
  uint32_t h = 0;
  for (unsigned char c : s)
    h = 31 * h + c;
  return static_cast<int32_t>(h);
}

/// The facade's async sends on their way: the callbacks and the
/// facade-side back-pressure counts, shared with the callback actor.
struct async_book {
  struct entry {
    producer::callback cb;
    size_t size = 0;
  };
  std::mutex mtx;
  std::condition_variable cv;
  std::map<uint64_t, entry> pending;
  uint64_t next_id = 0;
  size_t bytes = 0;

  /// Runs the callback, then frees its room: a waiting sender or shutdown
  /// sees the callback done.
  void finish(uint64_t id, caf::expected<client_send_result> res) {
    producer::callback cb;
    {
      std::lock_guard<std::mutex> guard{mtx};
      auto i = pending.find(id);
      if (i == pending.end())
        return;
      cb = std::move(i->second.cb);
    }
    if (cb)
      cb(std::move(res));
    {
      std::lock_guard<std::mutex> guard{mtx};
      auto i = pending.find(id);
      bytes -= std::min(bytes, i->second.size);
      pending.erase(i);
    }
    cv.notify_all();
  }

  /// Fails every send still pending (the send loop is gone).
  void fail_all(const caf::error& err) {
    std::vector<uint64_t> ids;
    {
      std::lock_guard<std::mutex> guard{mtx};
      for (auto& kvp : pending)
        ids.push_back(kvp.first);
    }
    for (auto id : ids)
      finish(id, err);
  }
};

/// Passes the facade's async sends on as tagged sends and runs their
/// callbacks when the send loop answers (one-way, so this actor keeps no
/// request per send in flight). The send loop answers every async send
/// within send_timeout; if it dies, the ones it had are failed here.
caf::behavior callback_actor(caf::event_based_actor* self,
                             std::shared_ptr<async_book> book,
                             producer_actor hdl) {
  auto gone = std::make_shared<bool>(false);
  self->monitor(hdl);
  self->set_down_handler([=](const caf::down_msg&) {
    *gone = true;
    book->fail_all(make_error(caf::sec::request_receiver_down));
  });
  return {
    [=](async_atom, uint64_t id, client_message& msg) {
      // A send to the gone send loop would be dropped: fail it here.
      if (*gone)
        book->finish(id, make_error(caf::sec::request_receiver_down));
      else
        self->send(hdl, async_atom::value, id, std::move(msg));
    },
    [=](async_atom, uint64_t id, client_send_result& res) {
      book->finish(id, std::move(res));
    },
    [=](async_atom, uint64_t id, caf::error& err) {
      log_request_failure(component, "async send", err);
      book->finish(id, std::move(err));
    },
  };
}

} // namespace

size_t select_by_hash(const std::vector<message_queue>& queues,
                      const client_message&, const std::string& arg) {
  if (queues.empty())
    return 0;
  auto value = java_hash(arg) % static_cast<int64_t>(queues.size());
  return static_cast<size_t>(std::llabs(value));
}

caf::expected<producer_actor>
spawn_producer_actor(caf::actor_system& sys, const producer_config& cfg,
                     const client_instance& inst) {
  if (auto err = check_group(cfg.group))
    return err;
  return sys.spawn(send_loop, cfg, inst);
}

caf::expected<producer_actor> spawn_producer_actor(caf::actor_system& sys,
                                                   const producer_config& cfg) {
  if (auto err = check_group(cfg.group))
    return err;
  auto inst = client_instance_for(sys, cfg.client);
  if (!inst)
    return inst.error();
  auto hdl = spawn_producer_actor(sys, cfg, **inst);
  // The instance lives while someone holds it: the actor does, until it
  // ends.
  if (hdl)
    (*hdl)->attach_functor([keep = std::move(*inst)] {});
  return hdl;
}

// -- facade -------------------------------------------------------------------

struct producer::impl {
  caf::actor_system* sys = nullptr;
  producer_config cfg;
  producer_actor hdl;
  caf::actor callbacks;
  std::shared_ptr<async_book> book = std::make_shared<async_book>();
  std::mutex stop_mtx;
  bool stopped = false;

  /// How long the facade waits for an answer: the send loop answers within
  /// send_timeout; the margin covers a busy scheduler.
  caf::timespan ask_timeout() const {
    return 2 * cfg.send_timeout + std::chrono::seconds{1};
  }

  void shutdown() {
    {
      std::lock_guard<std::mutex> guard{stop_mtx};
      if (stopped)
        return;
      stopped = true;
    }
    {
      // The async sends travel through the callback actor, so a shutdown
      // sent now could overtake them: let them end first.
      std::unique_lock<std::mutex> guard{book->mtx};
      book->cv.wait_for(guard, ask_timeout(),
                        [&] { return book->pending.empty(); });
    }
    caf::scoped_actor self{*sys};
    auto res = blocking_ask<caf::ok_atom>(self, hdl, ask_timeout(),
                                          shutdown_atom::value);
    if (!res)
      log_request_failure(component, "shutdown of " + cfg.group, res.error());
    caf::anon_send_exit(callbacks, caf::exit_reason::user_shutdown);
  }

  ~impl() {
    shutdown();
  }
};

namespace {

producer make_facade(caf::actor_system& sys, const producer_config& cfg,
                     producer_actor hdl) {
  auto ptr = std::make_shared<producer::impl>();
  ptr->sys = &sys;
  ptr->cfg = cfg;
  ptr->hdl = hdl;
  ptr->callbacks = sys.spawn(callback_actor, ptr->book, std::move(hdl));
  return producer{std::move(ptr)};
}

} // namespace

producer::producer(std::shared_ptr<impl> ptr) : impl_(std::move(ptr)) {
  // nop
}

producer_actor producer::handle() const {
  return impl_->hdl;
}

caf::expected<client_send_result> producer::send(const client_message& msg) {
  caf::scoped_actor self{*impl_->sys};
  return blocking_ask<client_send_result>(
    self, impl_->hdl, impl_->ask_timeout(), send_atom::value, msg);
}

void producer::send_async(client_message msg, callback cb) {
  auto& book = *impl_->book;
  auto& cfg = impl_->cfg;
  auto size = msg.body.size();
  {
    std::lock_guard<std::mutex> guard{impl_->stop_mtx};
    if (impl_->stopped) {
      if (cb)
        cb(make_error(errc::service_not_available,
                      "The producer service state not OK: shut down"));
      return;
    }
  }
  uint64_t id = 0;
  {
    std::unique_lock<std::mutex> guard{book.mtx};
    auto room = [&] {
      // The send loop's own bound, so what the facade lets through the
      // loop accepts.
      return book.pending.size() < cfg.max_async_messages
             && book.bytes + size <= cfg.max_async_bytes;
    };
    if (!book.cv.wait_for(guard, cfg.send_timeout, room)) {
      guard.unlock();
      if (cb)
        cb(make_error(errc::system_busy,
                      "async sends over the bound for "
                        + std::to_string(cfg.send_timeout.count() / 1000000)
                        + "ms"));
      return;
    }
    id = book.next_id++;
    book.bytes += size;
    book.pending.emplace(id, async_book::entry{std::move(cb), size});
  }
  caf::anon_send(impl_->callbacks, async_atom::value, id, std::move(msg));
}

void producer::send_oneway(client_message msg) {
  caf::anon_send(impl_->hdl, oneway_atom::value, std::move(msg));
}

caf::expected<client_send_result>
producer::send_batch(const std::vector<client_message>& msgs) {
  caf::scoped_actor self{*impl_->sys};
  return blocking_ask<client_send_result>(
    self, impl_->hdl, impl_->ask_timeout(), send_atom::value, msgs);
}

caf::expected<client_send_result>
producer::send_to(const client_message& msg, const message_queue& queue) {
  caf::scoped_actor self{*impl_->sys};
  return blocking_ask<client_send_result>(
    self, impl_->hdl, impl_->ask_timeout(), send_atom::value, msg, queue);
}

caf::expected<client_send_result>
producer::send_ordered(const client_message& msg,
                       const queue_selector_fn& selector,
                       const std::string& arg) {
  caf::expected<std::vector<message_queue>> queues{caf::no_error};
  {
    caf::scoped_actor self{*impl_->sys};
    queues = blocking_ask<std::vector<message_queue>>(
      self, impl_->hdl, impl_->ask_timeout(), queues_atom::value, msg.topic);
  }
  if (!queues)
    return queues.error();
  if (queues->empty())
    return make_error(errc::topic_not_exist,
                      "No route info of this topic: " + msg.topic);
  auto i = selector ? selector(*queues, msg, arg) : size_t{0};
  if (i >= queues->size())
    return make_error(errc::invalid_parameter,
                      "select message queue returned " + std::to_string(i)
                        + " of " + std::to_string(queues->size()) + " queues");
  return send_to(msg, (*queues)[i]);
}

caf::expected<received_message> producer::request(const client_message& msg,
                                                  caf::timespan timeout) {
  caf::scoped_actor self{*impl_->sys};
  // The producer answers by the timeout (or the send's own bound).
  return blocking_ask<received_message>(self, impl_->hdl,
                                        timeout + impl_->ask_timeout(),
                                        request_atom::value, msg, timeout);
}

void producer::request_async(client_message msg, caf::timespan timeout,
                             reply_callback cb) {
  // One small actor per request: it lives while its request is pending.
  auto hdl = impl_->hdl;
  auto bound = timeout + impl_->ask_timeout();
  impl_->sys->spawn([=](caf::event_based_actor* self) mutable {
    self->request(hdl, bound, request_atom::value, std::move(msg), timeout)
      .then(
        [cb](received_message& reply) {
          if (cb)
            cb(std::move(reply));
        },
        [cb](caf::error& err) {
          log_request_failure(component, "async request", err);
          if (cb)
            cb(std::move(err));
        });
  });
}

void producer::shutdown() {
  impl_->shutdown();
}

caf::expected<producer> spawn_producer(caf::actor_system& sys,
                                       const producer_config& cfg,
                                       const client_instance& inst) {
  auto hdl = spawn_producer_actor(sys, cfg, inst);
  if (!hdl)
    return hdl.error();
  return make_facade(sys, cfg, *hdl);
}

caf::expected<producer> spawn_producer(caf::actor_system& sys,
                                       const producer_config& cfg) {
  if (auto err = check_group(cfg.group))
    return err;
  auto hdl = spawn_producer_actor(sys, cfg);
  if (!hdl)
    return hdl.error();
  return make_facade(sys, cfg, *hdl);
}

} // namespace rmq
