// mqadmin's broker commands: topics and subscription groups on brokers,
// per-queue statistics, runtime figures, consumer progress and a broker's
// dump. Brokers are found through the NameServer (broker_targets.hpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "apps/rmq-admin/ask_and_print.hpp"
#include "apps/rmq-admin/broker_formatters.hpp"
#include "apps/rmq-admin/broker_targets.hpp"
#include "apps/rmq-admin/formatters.hpp"
#include "messages/common/errors.hpp"

namespace rmq::admin {

namespace {

// RocketMQ NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG.
constexpr char order_conf_namespace[] = "ORDER_TOPIC_CONFIG";

// Sends `req` to the broker at `addr`; prints why on failure.
template <class Result, class Request>
caf::expected<Result>
ask_broker(const command_env& env, const std::string& addr, Request req) {
  broker_client client{env.sys, env.args.timeout};
  if (auto err = client.connect(addr))
    return make_error(errc::service_not_available, "cannot connect to broker "
                                                     + addr + ": "
                                                     + describe(err));
  auto res = client.ask<Result>(std::move(req));
  if (!res)
    return at_broker(addr, res.error());
  return res;
}

// Puts the order conf of `topic` on every NameServer of the list.
int put_order_conf(const command_env& env, const std::string& topic,
                   const std::string& conf) {
  return ask_each<caf::ok_atom>(
    env, put_kv_config_request{order_conf_namespace, topic, conf},
    [](const namesrv_addr&, caf::ok_atom) {}, [](const namesrv_addr&) {});
}

// mqadmin's merge for one broker (createOrUpdateOrderConf, not cluster):
// the other brokers' "name:queues" entries of the old value stay.
std::string merge_order_conf(const std::string& old_conf,
                             const std::string& broker,
                             const std::string& entry) {
  std::map<std::string, std::string> by_broker;
  std::istringstream in{old_conf};
  std::string item;
  while (std::getline(in, item, ';'))
    if (auto colon = item.find(':'); colon != std::string::npos)
      by_broker[item.substr(0, colon)] = item;
  by_broker[broker] = entry;
  std::string out;
  for (auto& [name, x] : by_broker)
    out += (out.empty() ? "" : ";") + x;
  return out;
}

} // namespace

int update_topic_cmd(const command_env& env) {
  if (!one_of_b_or_c(env))
    return 2;
  topic_config cfg;
  cfg.topic_name = env.args.opt('t');
  int64_t r = 8;
  int64_t w = 8;
  int64_t p = perm::read_write;
  if (!int_opt(env, 'r', r) || !int_opt(env, 'w', w) || !int_opt(env, 'p', p))
    return 2;
  cfg.read_queue_nums = static_cast<int32_t>(r);
  cfg.write_queue_nums = static_cast<int32_t>(w);
  cfg.perm = static_cast<int32_t>(p);
  cfg.order = bool_opt(env, 'o', false);
  auto targets = targets_from_flags(env);
  if (!targets)
    return env.fail(targets.error());
  auto by_addr = env.args.opts.count('b') > 0;
  std::string order_conf;
  if (cfg.order && by_addr) {
    auto name = broker_name_of(env, env.args.opt('b'));
    if (!name)
      return env.fail(name.error());
    order_conf = *name + ":" + std::to_string(cfg.write_queue_nums);
  }
  for (auto& target : *targets) {
    auto res = ask_broker<data_version>(env, target.addr,
                                        update_topic_request{cfg});
    if (!res)
      return env.fail(res.error());
    if (by_addr && cfg.order) {
      std::string old_conf;
      namesrv_client ns{env.sys, env.args.timeout};
      if (!env.connect(ns))
        return 1;
      // No value yet is query_not_found: start from nothing.
      if (auto old = ns.ask<std::string>(
            get_kv_config_request{order_conf_namespace, cfg.topic_name}))
        old_conf = *old;
      auto name = order_conf.substr(0, order_conf.find(':'));
      order_conf = merge_order_conf(old_conf, name, order_conf);
      if (put_order_conf(env, cfg.topic_name, order_conf) != 0)
        return 1;
      std::cout << "set broker orderConf. isOrder=true, orderConf=["
                << order_conf << "]\n";
    }
    std::cout << "create topic to " << target.addr << " success.\n";
  }
  if (!by_addr && cfg.order) {
    std::vector<std::string> names;
    for (auto& target : *targets)
      if (std::find(names.begin(), names.end(), target.broker_name)
          == names.end())
        names.push_back(target.broker_name);
    for (auto& name : names)
      order_conf += (order_conf.empty() ? "" : ";") + name + ":"
                    + std::to_string(cfg.write_queue_nums);
    if (put_order_conf(env, cfg.topic_name, order_conf) != 0)
      return 1;
    std::cout << "set cluster orderConf. isOrder=true, orderConf=["
              << order_conf << "]\n";
  }
  std::cout << format_topic_config(cfg) << std::endl;
  return 0;
}

int delete_topic_in_cluster(const command_env& env) {
  auto topic = env.args.opt('t');
  auto cluster = env.args.opt('c');
  auto targets = cluster_brokers(env, cluster);
  if (!targets)
    return env.fail(targets.error());
  for (auto& target : *targets) {
    auto res = ask_broker<data_version>(env, target.addr,
                                        delete_topic_in_broker_request{topic});
    if (!res)
      return env.fail(res.error());
  }
  std::cout << "delete topic [" << topic << "] from cluster [" << cluster
            << "] success." << std::endl;
  return 0;
}

int topic_status_cmd(const command_env& env) {
  auto topic = env.args.opt('t');
  auto targets = topic_brokers(env, topic);
  if (!targets)
    return env.fail(targets.error());
  std::vector<topic_stats> all;
  for (auto& target : *targets) {
    auto res = ask_broker<topic_stats>(env, target.addr,
                                       topic_stats_request{topic});
    if (!res)
      return env.fail(res.error());
    all.push_back(std::move(*res));
  }
  std::cout << format_topic_status(std::move(all)) << std::flush;
  return 0;
}

// Like mqadmin: -c asks every member, masters and slaves, and goes on
// past a broker that fails.
int broker_status_cmd(const command_env& env) {
  if (!one_of_b_or_c(env))
    return 2;
  auto by_cluster = env.args.opts.count('c') > 0;
  auto targets = targets_from_flags(env, true);
  if (!targets)
    return env.fail(targets.error());
  int rc = 0;
  for (auto& target : *targets) {
    auto res = ask_broker<broker_runtime_info>(env, target.addr,
                                               broker_runtime_info_request{});
    if (!res) {
      rc = env.fail(res.error());
      continue;
    }
    std::cout << format_broker_status(*res, by_cluster ? target.addr : "");
  }
  std::cout << std::flush;
  return rc;
}

namespace {

// The log end a broker reports (brokerStatus' commitLogMaxOffset).
caf::expected<int64_t> log_end_of(const command_env& env,
                                  const std::string& addr) {
  auto info = ask_broker<broker_runtime_info>(env, addr,
                                              broker_runtime_info_request{});
  if (!info)
    return std::move(info.error());
  auto i = info->table.find("commitLogMaxOffset");
  if (i == info->table.end())
    return make_error(errc::invalid_parameter,
                      "broker " + addr + " reports no commitLogMaxOffset");
  return std::stoll(i->second);
}

} // namespace

// Manual failover (docs/replication.md, "Failover"): the slave must have
// the newest copy among its group's slaves; the broker itself refuses
// while it still copies from a live master.
int promote_cmd(const command_env& env) {
  auto addr = env.args.opt('b');
  auto role = env.args.opt('R').empty() ? "ASYNC_MASTER" : env.args.opt('R');
  auto force = bool_opt(env, 'F', false);
  if (!force) {
    auto group = broker_group_of(env, addr);
    if (!group)
      return env.fail(group.error());
    auto mine = log_end_of(env, addr);
    if (!mine)
      return env.fail(mine.error());
    for (auto& [id, member] : group->broker_addrs) {
      if (id == master_id || member == addr)
        continue;
      auto theirs = log_end_of(env, member);
      if (theirs && *theirs > *mine)
        return env.fail(make_error(
          errc::invalid_parameter,
          "slave " + member + " (id " + std::to_string(id)
            + ") has more of the log (" + std::to_string(*theirs) + " > "
            + std::to_string(*mine) + "): promote it instead, or -F true"));
    }
  }
  auto res = ask_broker<std::string>(env, addr,
                                     role_change_request{0, role, force});
  if (!res)
    return env.fail(res.error());
  std::cout << addr << ": " << *res << std::endl;
  return 0;
}

// mqadmin haStatus -b ADDR: read off the broker's dump (docs/replication.md,
// "haStatus").
int ha_status_cmd(const command_env& env) {
  auto addr = env.args.opt('b');
  auto dump = ask_broker<std::string>(env, addr, dump_atom::value);
  if (!dump)
    return env.fail(dump.error());
  auto text = format_ha_status(*dump, addr);
  if (!text)
    return env.fail(text.error());
  std::cout << *text << std::flush;
  return 0;
}

int demote_cmd(const command_env& env) {
  auto addr = env.args.opt('b');
  int64_t id = 0;
  if (!int_opt(env, 'i', id))
    return 2;
  auto res = ask_broker<std::string>(env, addr,
                                     role_change_request{id, "SLAVE", false});
  if (!res)
    return env.fail(res.error());
  std::cout << addr << ": " << *res << std::endl;
  return 0;
}

namespace {

// A group's progress over the brokers of `route_topic` (the topic, or the
// group's retry topic when no topic is given, as examineConsumeStats).
caf::expected<consume_stats> group_progress(const command_env& env,
                                            const std::string& group,
                                            const std::string& topic) {
  auto route_topic = topic.empty() ? "%RETRY%" + group : topic;
  auto targets = topic_brokers(env, route_topic);
  if (!targets)
    return std::move(targets.error());
  consume_stats all;
  for (auto& target : *targets) {
    auto res = ask_broker<consume_stats>(env, target.addr,
                                         consume_stats_request{group, topic});
    if (!res)
      return std::move(res.error());
    all.queues.insert(all.queues.end(), res->queues.begin(), res->queues.end());
    all.consume_tps += res->consume_tps;
  }
  return all;
}

} // namespace

// As mqadmin's examineConsumerConnectionInfo: asks a broker of the
// group's retry topic.
int consumer_connection_cmd(const command_env& env) {
  auto group = env.args.opt('g');
  auto targets = topic_brokers(env, "%RETRY%" + group);
  if (!targets)
    return env.fail(targets.error());
  caf::error last;
  for (auto& target : *targets) {
    auto res = ask_broker<consumer_connection>(
      env, target.addr, get_consumer_connection_request{group});
    if (res) {
      std::cout << format_consumer_connection(*res) << std::flush;
      return 0;
    }
    last = std::move(res.error());
  }
  return env.fail(last);
}

// As mqadmin consumerStatus: each member's running info, asked through a
// broker of the group (GET_CONSUMER_RUNNING_INFO, which the broker relays
// to the client); with -i one member's in full.
int consumer_status_cmd(const command_env& env) {
  auto group = env.args.opt('g');
  auto client_id = env.args.opt('i');
  auto targets = topic_brokers(env, "%RETRY%" + group);
  if (!targets)
    return env.fail(targets.error());
  caf::error last;
  for (auto& target : *targets) {
    auto members = ask_broker<consumer_connection>(
      env, target.addr, get_consumer_connection_request{group});
    if (!members) {
      last = std::move(members.error());
      continue;
    }
    // The broker gives a member 10 s to answer: wait for its verdict.
    auto args = env.args;
    args.timeout = std::max<std::chrono::milliseconds>(
      args.timeout, std::chrono::seconds{12});
    command_env patient{args, env.sys};
    auto ask = [&](const std::string& id) {
      return ask_broker<consumer_running_info>(
        patient, target.addr,
        get_consumer_running_info_request{group, id, false});
    };
    if (!client_id.empty()) {
      auto info = ask(client_id);
      if (!info)
        return env.fail(info.error());
      std::cout << format_consumer_running_info(info->body) << std::flush;
      return 0;
    }
    std::map<std::string, std::string> bodies;
    int i = 1;
    for (auto& c : members->connections) {
      auto info = ask(c.client_id);
      // mqadmin names the file it wrote each member's info to; we say
      // whether the member answered (-i prints it).
      std::printf("%03d  %-40s %-20d %s\n", i++, c.client_id.c_str(), c.version,
                  info ? "answered" : describe(info.error()).c_str());
      if (info)
        bodies[c.client_id] = info->body;
    }
    if (!bodies.empty()) {
      auto check = running_info_analysis(bodies);
      std::cout << "\n\n" << check << std::flush;
    }
    return 0;
  }
  return env.fail(last);
}

int consumer_progress_cmd(const command_env& env) {
  auto group = env.args.opt('g');
  if (!group.empty()) {
    auto stats = group_progress(env, group, env.args.opt('t'));
    if (!stats)
      return env.fail(stats.error());
    std::cout << format_consumer_progress(std::move(stats->queues),
                                          stats->consume_tps)
              << std::flush;
    return 0;
  }
  // No -g: every group with a retry topic, as mqadmin lists them; the
  // connection columns (#Count, #Version, #Type, #Model) come from the
  // brokers' consumer lists.
  namesrv_client ns{env.sys, env.args.timeout};
  if (!env.connect(ns))
    return 1;
  auto topics = ns.ask<topic_list>(get_all_topic_list_request{});
  if (!topics)
    return env.fail(topics.error());
  std::sort(topics->topics.begin(), topics->topics.end());
  char line[512];
  std::snprintf(line, sizeof(line),
                "%-64s  %-6s  %-24s %-5s  %-14s  %-7s  %s\n", "#Group",
                "#Count", "#Version", "#Type", "#Model", "#TPS", "#Diff Total");
  std::cout << line;
  const std::string prefix = "%RETRY%";
  for (auto& topic : topics->topics) {
    if (topic.compare(0, prefix.size(), prefix) != 0)
      continue;
    auto name = topic.substr(prefix.size());
    int64_t diff_total = 0;
    int64_t tps = 0;
    if (auto stats = group_progress(env, name, "")) {
      for (auto& q : stats->queues)
        diff_total += q.broker_offset - q.consumer_offset;
      tps = static_cast<int64_t>(stats->consume_tps);
    }
    size_t count = 0;
    if (auto targets = topic_brokers(env, topic); targets && !targets->empty())
      if (auto list = ask_broker<consumer_list>(
            env, targets->front().addr, get_consumer_list_request{name}))
        count = list->client_ids.size();
    // Version, type and model are not in the consumer list: "-" for a
    // group that has consumers.
    std::snprintf(line, sizeof(line),
                  "%-64s  %-6zu  %-24s %-5s  %-14s  %-7lld  %lld\n",
                  name.c_str(), count, count > 0 ? "-" : "OFFLINE",
                  count > 0 ? "-" : "", count > 0 ? "-" : "",
                  static_cast<long long>(tps),
                  static_cast<long long>(diff_total));
    std::cout << line;
  }
  std::cout << std::flush;
  return 0;
}

int update_sub_group_cmd(const command_env& env) {
  if (!one_of_b_or_c(env))
    return 2;
  subscription_group_config cfg;
  // mqadmin's defaults for this command, not the class's.
  cfg.consume_broadcast_enable = false;
  cfg.consume_from_min_enable = false;
  cfg.group_name = env.args.opt('g');
  cfg.consume_enable = bool_opt(env, 's', cfg.consume_enable);
  cfg.consume_from_min_enable = bool_opt(env, 'm', false);
  cfg.consume_broadcast_enable = bool_opt(env, 'd', false);
  cfg.consume_message_orderly = bool_opt(env, 'o', false);
  cfg.notify_consumer_ids_changed_enable
    = bool_opt(env, 'a', cfg.notify_consumer_ids_changed_enable);
  int64_t q = cfg.retry_queue_nums;
  int64_t r = cfg.retry_max_times;
  if (!int_opt(env, 'q', q) || !int_opt(env, 'r', r)
      || !int_opt(env, 'i', cfg.broker_id)
      || !int_opt(env, 'w', cfg.which_broker_when_consume_slowly))
    return 2;
  cfg.retry_queue_nums = static_cast<int32_t>(q);
  cfg.retry_max_times = static_cast<int32_t>(r);
  auto targets = targets_from_flags(env);
  if (!targets)
    return env.fail(targets.error());
  for (auto& target : *targets) {
    auto res = ask_broker<data_version>(env, target.addr,
                                        update_sub_group_request{cfg});
    if (!res)
      return env.fail(res.error());
    std::cout << "create subscription group to " << target.addr
              << " success.\n";
  }
  std::cout << format_sub_group(cfg) << std::endl;
  return 0;
}

int dump_cmd(const command_env& env) {
  if (env.args.opts.count('b') == 0)
    return ask_and_print<std::string>(env, dump_atom::value, pretty_json);
  auto res = ask_broker<std::string>(env, env.args.opt('b'), dump_atom::value);
  if (!res)
    return env.fail(res.error());
  std::cout << pretty_json(*res) << std::flush;
  return 0;
}

} // namespace rmq::admin
