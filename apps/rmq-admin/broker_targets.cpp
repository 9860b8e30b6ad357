#include "apps/rmq-admin/broker_targets.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>

#include "apps/rmq-admin/namesrv_client.hpp"
#include "messages/common/errors.hpp"
#include "messages/namesrv/namesrv.hpp"
#include "runtime/remoting/namesrv_body.hpp"

namespace rmq::admin {

namespace {

template <class Result, class Request>
caf::expected<Result> ask_namesrv(const command_env& env, Request req) {
  namesrv_client client{env.sys, env.args.timeout};
  if (auto err = client.connect_any(env.args.namesrvs))
    return err;
  return client.ask<Result>(std::move(req));
}

} // namespace

caf::expected<std::vector<broker_target>>
cluster_brokers(const command_env& env, const std::string& cluster,
                bool with_slaves) {
  auto info = ask_namesrv<cluster_info>(env, get_broker_cluster_info_request{});
  if (!info)
    return std::move(info.error());
  auto names = info->cluster_addr_table.find(cluster);
  if (names == info->cluster_addr_table.end() || names->second.empty())
    return make_error(errc::broker_not_found,
                      "cluster " + cluster + " has no brokers");
  std::vector<std::string> sorted = names->second;
  std::sort(sorted.begin(), sorted.end());
  std::vector<broker_target> out;
  for (auto& name : sorted) {
    auto data = info->broker_addr_table.find(name);
    if (data == info->broker_addr_table.end())
      continue;
    for (auto& [id, addr] : data->second.broker_addrs)
      if (id == master_id || with_slaves)
        out.push_back({name, addr});
  }
  if (out.empty())
    return make_error(errc::broker_not_found,
                      "cluster " + cluster + " has no master broker");
  return out;
}

std::string caf_addr_of(const command_env& env, const std::string& addr) {
  auto info = ask_namesrv<cluster_info>(env, get_broker_cluster_info_request{});
  if (!info)
    return addr;
  auto found = remoting::caf_addr_of(*info, addr);
  return found.empty() ? addr : found;
}

caf::expected<topic_route_data> topic_route(const command_env& env,
                                            const std::string& topic) {
  return ask_namesrv<topic_route_data>(env, get_route_info_request{topic});
}

caf::expected<std::vector<broker_target>>
topic_brokers(const command_env& env, const std::string& topic) {
  auto route = topic_route(env, topic);
  if (!route)
    return std::move(route.error());
  std::vector<broker_target> out;
  for (auto& data : route->broker_datas) {
    auto master = data.broker_addrs.find(master_id);
    if (master != data.broker_addrs.end())
      out.push_back({data.broker_name, master->second});
  }
  std::sort(out.begin(), out.end(),
            [](const broker_target& x, const broker_target& y) {
              return x.broker_name < y.broker_name;
            });
  if (out.empty())
    return make_error(errc::broker_not_found,
                      "no master broker serves topic " + topic);
  return out;
}

caf::expected<broker_data> broker_group_of(const command_env& env,
                                           const std::string& addr) {
  auto info = ask_namesrv<cluster_info>(env, get_broker_cluster_info_request{});
  if (!info)
    return std::move(info.error());
  for (auto& [name, data] : info->broker_addr_table)
    for (auto& [id, member] : data.broker_addrs)
      if (member == addr)
        return data;
  return make_error(errc::broker_not_found,
                    "no broker registered with address " + addr);
}

caf::expected<std::string> broker_name_of(const command_env& env,
                                          const std::string& addr) {
  auto group = broker_group_of(env, addr);
  if (!group)
    return std::move(group.error());
  return group->broker_name;
}

caf::expected<std::string> master_of(const topic_route_data& route,
                                     const std::string& name) {
  for (auto& data : route.broker_datas)
    if (data.broker_name == name) {
      auto master = data.broker_addrs.find(master_id);
      if (master != data.broker_addrs.end())
        return master->second;
    }
  return make_error(errc::broker_not_found,
                    "the topic's route has no master broker " + name);
}

caf::error at_broker(const std::string& addr, const caf::error& err) {
  if (err.category() == errc_category)
    return make_error(static_cast<errc>(err.code()),
                      "broker " + addr + ": " + error_detail(err));
  return make_error(errc::service_not_available,
                    "broker " + addr + ": " + describe(err));
}

int usage_fail(const command_env& env, const std::string& why) {
  std::cerr << "rmq-admin: " << env.args.command << ": " << why << std::endl;
  return 2;
}

bool one_of_b_or_c(const command_env& env) {
  auto has_b = env.args.opts.count('b') > 0;
  auto has_c = env.args.opts.count('c') > 0;
  if (has_b == has_c) {
    usage_fail(env, "give exactly one of -b BROKER_ADDR and -c CLUSTER");
    return false;
  }
  return true;
}

caf::expected<std::vector<broker_target>>
targets_from_flags(const command_env& env, bool with_slaves) {
  if (env.args.opts.count('b') > 0)
    return std::vector<broker_target>{{std::string{}, env.args.opt('b')}};
  return cluster_brokers(env, env.args.opt('c'), with_slaves);
}

bool bool_opt(const command_env& env, char key, bool fallback) {
  auto i = env.args.opts.find(key);
  if (i == env.args.opts.end())
    return fallback;
  auto text = i->second;
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text == "true";
}

bool int_opt(const command_env& env, char key, int64_t& out) {
  auto i = env.args.opts.find(key);
  if (i == env.args.opts.end())
    return true;
  char* end = nullptr;
  auto x = std::strtoll(i->second.c_str(), &end, 10);
  if (i->second.empty() || *end != '\0') {
    usage_fail(env, std::string{"option -"} + key + " needs a number, not '"
                      + i->second + "'");
    return false;
  }
  out = x;
  return true;
}

} // namespace rmq::admin
