#include "runtime/net/connect.hpp"

#include "caf/io/middleman.hpp"
#include "caf/openssl/manager.hpp"

namespace rmq {

caf::io::middleman_actor connector(caf::actor_system& sys) {
  if (sys.has_openssl_manager())
    return sys.openssl_manager().actor_handle();
  return sys.middleman().actor_handle();
}

} // namespace rmq
