// wipeWritePerm / addWritePerm: like mqadmin, they go to every NameServer
// of the list, since each one holds the broker's queues independently.
#include <iostream>

#include "apps/rmq-admin/commands.hpp"
#include "apps/rmq-admin/namesrv_client.hpp"

namespace rmq::admin {

namespace {

template <class Request>
int change_write_perm(const command_env& env, const char* verb) {
  auto broker = env.args.opt('b');
  int rc = 0;
  for (auto& addr : env.args.namesrvs) {
    namesrv_client client{env.sys, env.args.timeout};
    if (!env.connect(client, addr)) {
      rc = 1;
      continue;
    }
    auto res = client.ask<write_perm_result>(Request{broker});
    if (!res) {
      rc = env.fail(res.error());
      continue;
    }
    std::cout << verb << " write perm of broker[" << broker << "] in namesrv["
              << addr.to_string() << "] OK, " << res->topic_count
              << std::endl;
  }
  return rc;
}

} // namespace

int wipe_write_perm_cmd(const command_env& env) {
  return change_write_perm<wipe_write_perm_request>(env, "wipe");
}

int add_write_perm_cmd(const command_env& env) {
  return change_write_perm<add_write_perm_request>(env, "add");
}

} // namespace rmq::admin
