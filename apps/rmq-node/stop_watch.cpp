#include "caf/scoped_actor.hpp"

#include "apps/rmq-node/node_options.hpp"
#include "runtime/common/log.hpp"

namespace rmq::node {

stop_watch::stop_watch(caf::actor_system& sys, supervisor_actor sup) {
  // Any peer that can connect can send an actor an exit message, which
  // CAF 0.17 cannot refuse: the supervisor then stops, and the watchdog
  // turns that into SIGUSR1 for sigwait.
  watchdog_ = std::thread{[this, &sys, sup] {
    caf::scoped_actor self{sys};
    self->monitor(sup);
    self->receive([&](caf::down_msg& dm) { failure_ = sys.render(dm.reason); });
    kill(getpid(), SIGUSR1);
  }};
}

stop_watch::~stop_watch() {
  if (watchdog_.joinable())
    watchdog_.join();
}

int stop_watch::wait(const sigset_t& signals, const char* component) {
  int sig = 0;
  sigwait(&signals, &sig);
  if (sig != SIGUSR1)
    RMQ_INFO(component, "signal " << sig << ": shutting down");
  else if (watchdog_.joinable())
    watchdog_.join(); // it is done; `failure_` is complete
  return sig;
}

} // namespace rmq::node
