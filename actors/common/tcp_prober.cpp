#include "actors/common/tcp_prober.hpp"

#include <cstdint>
#include <string>

#include "caf/atom.hpp"
#include "caf/message.hpp"
#include "caf/result.hpp"

#include "runtime/net/tcp_probe.hpp"

namespace rmq {

caf::behavior tcp_prober(caf::event_based_actor* self, caf::actor connector,
                         std::chrono::milliseconds timeout) {
  return {
    [=](caf::connect_atom, std::string& host,
        uint16_t port) -> caf::result<caf::message> {
      self->quit();
      if (auto err = tcp_probe(host, port, timeout))
        return err;
      return self->delegate(connector, caf::connect_atom::value,
                            std::move(host), port);
    },
  };
}

} // namespace rmq
