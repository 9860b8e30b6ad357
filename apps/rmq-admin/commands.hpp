// The command table of rmq-admin: mqadmin's command names, the options each
// one needs, and the function that runs it. Commands live in
// topic_commands.cpp, broker_commands.cpp, kv_commands.cpp,
// config_commands.cpp, store_commands.cpp, broker_admin_commands.cpp
// (commands sent to brokers), message_commands.cpp, send_commands.cpp (a
// real producer) and consume_commands.cpp (a real consumer).
#pragma once

#include <string>
#include <vector>

#include "caf/fwd.hpp"

#include "apps/rmq-admin/admin_args.hpp"

namespace rmq::admin {

class namesrv_client;

/// What a command runs with.
struct command_env {
  const admin_args& args;
  caf::actor_system& sys;

  /// Connects to `addr`; on failure prints "cannot connect" and returns
  /// false (the command then exits with 1).
  bool connect(namesrv_client& client, const namesrv_addr& addr) const;

  /// Connects to the first NameServer of the list.
  bool connect(namesrv_client& client) const;

  /// Prints "rmq-admin: <command>: <error>" to stderr; returns 1.
  int fail(const caf::error& err) const;
};

using command_fn = int (*)(const command_env&);

struct command_spec {
  const char* name;
  /// "topicRoute -t TOPIC"
  const char* synopsis;
  /// One line for the usage text.
  const char* about;
  /// Options the command must get (short names).
  std::string required;
  /// Options the command may get in addition.
  std::string optional;
  command_fn run;
  /// Runs without a NameServer (e.g. on a stopped store's files).
  bool offline = false;
};

/// Every command, in the order of the usage text.
const std::vector<command_spec>& command_table();

/// Returns the command named `name` or nullptr.
const command_spec* find_command(const std::string& name);

// -- commands (one function each) ---------------------------------------------

int dump_cmd(const command_env& env);
int topic_route_cmd(const command_env& env);
int topic_list_cmd(const command_env& env);
int topics_by_cluster_cmd(const command_env& env);
int delete_topic_cmd(const command_env& env);
int cluster_list_cmd(const command_env& env);
int broker_member_group_cmd(const command_env& env);
int wipe_write_perm_cmd(const command_env& env);
int add_write_perm_cmd(const command_env& env);
int get_kv_config_cmd(const command_env& env);
int update_kv_config_cmd(const command_env& env);
int delete_kv_config_cmd(const command_env& env);
int get_kv_list_cmd(const command_env& env);
int get_namesrv_config_cmd(const command_env& env);
int update_namesrv_config_cmd(const command_env& env);
int verify_store_cmd(const command_env& env);
int update_topic_cmd(const command_env& env);
int topic_status_cmd(const command_env& env);
int broker_status_cmd(const command_env& env);
int promote_cmd(const command_env& env);
int demote_cmd(const command_env& env);
int ha_status_cmd(const command_env& env);
int consumer_progress_cmd(const command_env& env);
int consumer_connection_cmd(const command_env& env);
int consumer_status_cmd(const command_env& env);
int update_sub_group_cmd(const command_env& env);
int send_message_cmd(const command_env& env);
int query_msg_by_id_cmd(const command_env& env);
int query_msg_by_key_cmd(const command_env& env);
int query_msg_by_offset_cmd(const command_env& env);
int print_msg_cmd(const command_env& env);
int consume_message_cmd(const command_env& env);

/// deleteTopic -c: DELETE_TOPIC_IN_BROKER on every master of the cluster.
int delete_topic_in_cluster(const command_env& env);

} // namespace rmq::admin
