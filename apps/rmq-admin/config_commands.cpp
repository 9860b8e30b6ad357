// getNamesrvConfig / updateNamesrvConfig: like mqadmin, every NameServer of
// the list (each has its own settings), printed in mqadmin's format.
#include <iostream>
#include <string>

#include "apps/rmq-admin/ask_and_print.hpp"
#include "apps/rmq-admin/formatters.hpp"

namespace rmq::admin {

int get_namesrv_config_cmd(const command_env& env) {
  return ask_each<namesrv_config>(
    env, get_namesrv_config_request{},
    [](const namesrv_addr& addr, const namesrv_config& cfg) {
      std::cout << format_namesrv_config(addr.to_string(), cfg);
    },
    [](const namesrv_addr&) {});
}

namespace {

// mqadmin trims -k and -v.
std::string trim(const std::string& x) {
  auto first = x.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    return {};
  return x.substr(first, x.find_last_not_of(" \t\r\n") - first + 1);
}

} // namespace

int update_namesrv_config_cmd(const command_env& env) {
  auto key = trim(env.args.opt('k'));
  auto value = trim(env.args.opt('v'));
  std::vector<std::string> servers;
  for (auto& addr : env.args.namesrvs)
    servers.push_back(addr.to_string());
  auto rc = ask_each<caf::ok_atom>(
    env, update_namesrv_config_request{{{key, value}}},
    [](const namesrv_addr&, caf::ok_atom) {}, [](const namesrv_addr&) {});
  if (rc == 0)
    std::cout << format_namesrv_config_updated(servers, key, value)
              << std::flush;
  return rc;
}

} // namespace rmq::admin
