// Commands about topics, clusters and the node as a whole.
#include <iostream>

#include "apps/rmq-admin/ask_and_print.hpp"
#include "apps/rmq-admin/formatters.hpp"

namespace rmq::admin {

int topic_route_cmd(const command_env& env) {
  return ask_and_print<topic_route_data>(
    env, get_route_info_request{env.args.opt('t')}, format_topic_route);
}

int topic_list_cmd(const command_env& env) {
  return ask_and_print<topic_list>(env, get_all_topic_list_request{},
                                   format_topic_list);
}

int topics_by_cluster_cmd(const command_env& env) {
  return ask_and_print<topic_list>(
    env, get_topics_by_cluster_request{env.args.opt('c')}, format_topic_list);
}

// Like mqadmin's deleteTopicInNameServer, every NameServer of the list
// (each holds its own routes); mqadmin's wording, which names no cluster.
// With -c, like mqadmin, the cluster's masters delete it first.
int delete_topic_cmd(const command_env& env) {
  auto topic = env.args.opt('t');
  if (env.args.opts.count('c') > 0)
    if (auto rc = delete_topic_in_cluster(env); rc != 0)
      return rc;
  bool all_ok = true;
  auto rc = ask_each<caf::ok_atom>(
    env, delete_topic_request{topic, env.args.opt('c')},
    [](const namesrv_addr&, caf::ok_atom) {},
    [&](const namesrv_addr&) { all_ok = false; });
  if (all_ok)
    std::cout << "delete topic [" << topic << "] from NameServer success."
              << std::endl;
  return rc;
}

int cluster_list_cmd(const command_env& env) {
  return ask_and_print<cluster_info>(env, get_broker_cluster_info_request{},
                                     format_cluster_list);
}

int broker_member_group_cmd(const command_env& env) {
  return ask_and_print<broker_member_group>(
    env, get_broker_member_group_request{env.args.opt('c'), env.args.opt('b')},
    format_member_group);
}

} // namespace rmq::admin
