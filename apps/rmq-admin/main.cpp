// rmq-admin: mqadmin's NameServer commands against an rmq-node.
//   rmq-admin --namesrv 127.0.0.1:9886 topicRoute -t TopicA
//   rmq-admin -n 127.0.0.1:9886 clusterList
// `rmq-admin --help` lists every command. Exit codes: 0 ok, 1 unreachable
// NameServer or error answer, 2 usage error.
#include <iostream>

#include "caf/actor_system.hpp"
#include "caf/io/middleman.hpp"

#include "apps/rmq-admin/admin_args.hpp"
#include "apps/rmq-admin/commands.hpp"
#include "apps/rmq-admin/namesrv_client.hpp"
#include "messages/common/errors.hpp"
#include "runtime/process/node_config.hpp"

namespace rmq::admin {

bool command_env::connect(namesrv_client& client,
                          const namesrv_addr& addr) const {
  if (auto err = client.connect(addr)) {
    std::cerr << "rmq-admin: cannot connect to namesrv " << addr.to_string()
              << ": " << describe(err) << std::endl;
    return false;
  }
  return true;
}

bool command_env::connect(namesrv_client& client) const {
  if (auto err = client.connect_any(args.namesrvs)) {
    std::cerr << "rmq-admin: " << error_detail(err) << std::endl;
    return false;
  }
  return true;
}

int command_env::fail(const caf::error& err) const {
  std::cerr << "rmq-admin: " << args.command << ": " << describe(err)
            << std::endl;
  return 1;
}

namespace {

int usage_error(const std::string& why) {
  std::cerr << "rmq-admin: " << why << "\n" << usage_text();
  return 2;
}

// Checks the command's options before anything connects.
std::string check_options(const command_spec& cmd, const admin_args& args) {
  for (char key : cmd.required)
    if (args.opt(key).empty())
      return std::string{cmd.name} + ": missing option -" + key
             + " (usage: " + cmd.synopsis + ")";
  for (auto& [key, value] : args.opts)
    if (cmd.required.find(key) == std::string::npos
        && cmd.optional.find(key) == std::string::npos)
      return std::string{cmd.name} + ": option -" + key
             + " does not apply (usage: " + cmd.synopsis + ")";
  return {};
}

} // namespace

} // namespace rmq::admin

// Not CAF_MAIN: CAF 0.17's exec_main drops caf_main's exit code.
int main(int argc, char** argv) {
  using namespace rmq::admin;
  admin_args args;
  if (auto why = parse_args(argc, argv, args))
    return usage_error(*why);
  if (args.help) {
    std::cout << usage_text();
    return 0;
  }
  auto cmd = find_command(args.command);
  if (cmd == nullptr)
    return usage_error("unknown command '" + args.command + "'");
  if (auto why = check_options(*cmd, args); !why.empty())
    return usage_error(why);
  rmq::node_config cfg;
  cfg.tls_dir = args.tls_dir;
  if (auto why = cfg.load_network(); !why.empty()) {
    std::cerr << "rmq-admin: " << why << std::endl;
    return 2;
  }
  caf::actor_system sys{cfg};
  command_env env{args, sys};
  return cmd->run(env);
}
