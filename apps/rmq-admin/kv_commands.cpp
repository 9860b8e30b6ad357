// KV config commands (RocketMQ KVConfigManager, mqadmin updateKvConfig).
#include "apps/rmq-admin/ask_and_print.hpp"
#include "apps/rmq-admin/formatters.hpp"

namespace rmq::admin {

int get_kv_config_cmd(const command_env& env) {
  return ask_and_print<std::string>(
    env, get_kv_config_request{env.args.opt('s'), env.args.opt('k')},
    [](const std::string& value) { return value + '\n'; });
}

int update_kv_config_cmd(const command_env& env) {
  return ask_and_print<caf::ok_atom>(
    env,
    put_kv_config_request{env.args.opt('s'), env.args.opt('k'),
                          env.args.opt('v')},
    [](caf::ok_atom) {
      return std::string{"create or update kv config to namespace success.\n"};
    });
}

int delete_kv_config_cmd(const command_env& env) {
  return ask_and_print<caf::ok_atom>(
    env, delete_kv_config_request{env.args.opt('s'), env.args.opt('k')},
    [](caf::ok_atom) {
      return std::string{"delete kv config from namespace success.\n"};
    });
}

int get_kv_list_cmd(const command_env& env) {
  return ask_and_print<kv_table>(
    env, get_kv_list_by_namespace_request{env.args.opt('s')}, format_kv_table);
}

} // namespace rmq::admin
