// The shapes of most commands: connect to the first NameServer, send one
// request, print the answer through a formatter; or send it to every
// NameServer of the list, for what each one holds on its own.
#pragma once

#include <iostream>
#include <utility>

#include "apps/rmq-admin/commands.hpp"
#include "apps/rmq-admin/namesrv_client.hpp"

namespace rmq::admin {

template <class Result, class Request, class Format>
int ask_and_print(const command_env& env, Request req, Format format) {
  namesrv_client client{env.sys, env.args.timeout};
  if (!env.connect(client))
    return 1;
  auto res = client.ask<Result>(std::move(req));
  if (!res)
    return env.fail(res.error());
  std::cout << format(*res) << std::flush;
  return 0;
}

/// Sends `req` to every NameServer of the list, in order. Calls
/// `on_ok(addr, result)` for each answer and `on_fail(addr)` for each
/// NameServer that cannot be reached or answers an error (printed to
/// stderr first); returns 0 if every one answered, else 1.
template <class Result, class Request, class OnOk, class OnFail>
int ask_each(const command_env& env, const Request& req, OnOk on_ok,
             OnFail on_fail) {
  int rc = 0;
  for (auto& addr : env.args.namesrvs) {
    namesrv_client client{env.sys, env.args.timeout};
    if (!env.connect(client, addr)) {
      on_fail(addr);
      rc = 1;
      continue;
    }
    auto res = client.ask<Result>(req);
    if (!res) {
      rc = env.fail(res.error());
      on_fail(addr);
      continue;
    }
    on_ok(addr, *res);
  }
  std::cout << std::flush;
  return rc;
}

} // namespace rmq::admin
