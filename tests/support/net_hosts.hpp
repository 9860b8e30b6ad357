// Several "hosts" on one machine for tests of what crosses a network:
// one network namespace per host, each joined by a veth link to a bridge
// in a hub namespace of its own, on 10.77.0.0/24. Traffic never leaves
// those namespaces. A link can be cut (its hub end down) and restored.
// Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN) and iproute2's `ip`;
// `net_hosts::unavailable()` says why not, for a test to skip.
#pragma once

#include <string>
#include <vector>

namespace rmq::test {

class net_hosts {
public:
  /// Why hosts cannot be made here (not root, no `ip`, namespaces
  /// refused), or empty.
  static std::string unavailable();

  /// Makes `n` hosts; REQUIREs that each step works.
  explicit net_hosts(int n);

  /// Removes every namespace it made (and with them their links).
  ~net_hosts();

  net_hosts(const net_hosts&) = delete;
  net_hosts& operator=(const net_hosts&) = delete;

  /// Host `i`'s address (10.77.0.i+1).
  std::string ip(int i) const;

  /// The command prefix that runs a program on host `i`.
  std::vector<std::string> on(int i) const;

  /// Takes host `i`'s link down (hub end): nothing reaches it or leaves
  /// it, its connections stay open without an answer, as when a cable is
  /// pulled.
  void cut(int i);

  /// Brings host `i`'s link up again.
  void restore(int i);

private:
  std::string ns(int i) const;
  std::string hub_end(int i) const;

  std::string tag_;
  int n_ = 0;
};

} // namespace rmq::test
