#include "runtime/connect.hpp"

#include "caf/io/middleman.hpp"

namespace rmq {

caf::io::middleman_actor connector(caf::actor_system& sys) {
  return sys.middleman().actor_handle();
}

} // namespace rmq
