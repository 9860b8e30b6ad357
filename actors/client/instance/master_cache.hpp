// The broker nodes a consumer resolved (broker name and id -> address and
// handle): masters, and the slaves a master suggested for pulls, so that
// its pulls, commits and locks skip the route cache and the peer
// directory (two requests each) once a node is known. The
// consumer forgets an address when its connection is lost or a pull to it
// fails; the push consumer also starts over at each assignment, so a
// master that moved is found again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "messages/client/client.hpp"
#include "messages/namesrv/route.hpp"

namespace rmq {

class master_cache {
public:
  using entry = std::pair<std::string, client_broker_actor>;

  /// The known node `id` (0: the master) of `broker_name`, or null.
  const entry* find(const std::string& broker_name,
                    int64_t id = master_id) const {
    auto i = masters_.find({broker_name, id});
    return i == masters_.end() ? nullptr : &i->second;
  }

  void put(const std::string& broker_name, std::string addr,
           client_broker_actor hdl, int64_t id = master_id) {
    masters_[{broker_name, id}] = {std::move(addr), std::move(hdl)};
  }

  /// Forgets every broker whose master is at `addr`.
  void forget_address(const std::string& addr) {
    for (auto i = masters_.begin(); i != masters_.end();)
      if (i->second.first == addr)
        i = masters_.erase(i);
      else
        ++i;
  }

  void clear() {
    masters_.clear();
  }

  size_t size() const {
    return masters_.size();
  }

private:
  std::map<std::pair<std::string, int64_t>, entry> masters_;
};

} // namespace rmq
