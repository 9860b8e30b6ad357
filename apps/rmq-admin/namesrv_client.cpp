#include "apps/rmq-admin/namesrv_client.hpp"

#include <set>

#include "caf/actor_cast.hpp"
#include "caf/atom.hpp"
#include "caf/io/middleman.hpp"
#include "caf/node_id.hpp"

namespace rmq::admin {

namesrv_client::namesrv_client(caf::actor_system& sys,
                               std::chrono::milliseconds timeout)
  : sys_(sys), timeout_(timeout), self_(sys) {
  // nop
}

caf::error namesrv_client::connect(const namesrv_addr& addr) {
  // What middleman::remote_actor<T> does, with a timeout.
  caf::error result = caf::make_error(caf::sec::request_timeout);
  self_
    ->request(sys_.middleman().actor_handle(), timeout_,
              caf::connect_atom::value, addr.host, addr.port)
    .receive(
      [&](const caf::node_id&, caf::strong_actor_ptr& ptr,
          const std::set<std::string>& ifs) {
        if (!ptr)
          result = caf::make_error(caf::sec::no_actor_published_at_port);
        else if (!sys_.assignable<namesrv_actor>(ifs))
          result
            = caf::make_error(caf::sec::unexpected_actor_messaging_interface);
        else {
          hdl_ = caf::actor_cast<namesrv_actor>(std::move(ptr));
          result = caf::error{};
        }
      },
      [&](caf::error& err) { result = std::move(err); });
  return result;
}

} // namespace rmq::admin
