// The shape of most commands: connect to the first NameServer, send one
// request, print the answer through a formatter.
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

} // namespace rmq::admin
