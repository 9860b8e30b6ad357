// wipeWritePerm / addWritePerm: like mqadmin, they go to every NameServer
// of the list, since each one holds the broker's queues independently.
#include <iostream>

#include "apps/rmq-admin/ask_and_print.hpp"

namespace rmq::admin {

namespace {

// mqadmin's wording: "<verb> write perm of broker[B] in name server[N] OK, 3"
// or "... Failed".
template <class Request>
int change_write_perm(const command_env& env, const char* verb) {
  auto broker = env.args.opt('b');
  auto prefix = [=](const namesrv_addr& addr) {
    return std::string{verb} + " write perm of broker[" + broker
           + "] in name server[" + addr.to_string() + "] ";
  };
  return ask_each<write_perm_result>(
    env, Request{broker},
    [&](const namesrv_addr& addr, const write_perm_result& res) {
      std::cout << prefix(addr) << "OK, " << res.topic_count << '\n';
    },
    [&](const namesrv_addr& addr) { std::cout << prefix(addr) << "Failed\n"; });
}

} // namespace

int wipe_write_perm_cmd(const command_env& env) {
  return change_write_perm<wipe_write_perm_request>(env, "wipe");
}

int add_write_perm_cmd(const command_env& env) {
  return change_write_perm<add_write_perm_request>(env, "add");
}

} // namespace rmq::admin
