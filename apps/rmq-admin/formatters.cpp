#include "apps/rmq-admin/formatters.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/remoting/namesrv_body.hpp"

namespace rmq::admin {

namespace {

using json = nlohmann::json;

std::string row(const std::string& cluster, const std::string& broker,
                const std::string& bid, const std::string& addr) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "%-22s  %-22s  %-4s  %-22s", cluster.c_str(),
                broker.c_str(), bid.c_str(), addr.c_str());
  std::string out = buf;
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out + '\n';
}

} // namespace

std::string format_topic_route(const topic_route_data& route) {
  return remoting::to_json(route).dump(2) + '\n';
}

std::string format_cluster_list(const cluster_info& info) {
  std::string out = row("#Cluster Name", "#Broker Name", "#BID", "#Addr");
  // cluster_addr_table and broker_addrs are std::maps: already sorted.
  for (auto& [cluster, names] : info.cluster_addr_table) {
    auto sorted = names;
    std::sort(sorted.begin(), sorted.end());
    for (auto& name : sorted) {
      auto i = info.broker_addr_table.find(name);
      if (i == info.broker_addr_table.end())
        continue;
      for (auto& [id, addr] : i->second.broker_addrs)
        out += row(cluster, name, std::to_string(id), addr);
    }
  }
  return out;
}

std::string format_member_group(const broker_member_group& group) {
  json out{{"cluster", group.cluster},
           {"brokerName", group.broker_name},
           {"brokerAddrs", remoting::broker_addrs_json(group.broker_addrs)}};
  return out.dump(2) + '\n';
}

std::string format_topic_list(const topic_list& topics) {
  std::string out;
  for (auto& topic : topics.topics)
    out += topic + '\n';
  return out;
}

std::string format_kv_table(const kv_table& table) {
  std::string out;
  for (auto& [key, value] : table.table)
    out += key + '=' + value + '\n';
  return out;
}

std::string format_namesrv_config(const std::string& server,
                                  const namesrv_config& cfg) {
  std::string out = "============" + server + "============\n";
  for (auto& [key, value] : cfg.properties) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%-50s", key.c_str());
    out += buf;
    out += "=  " + value + '\n';
  }
  return out;
}

std::string
format_namesrv_config_updated(const std::vector<std::string>& servers,
                              const std::string& key,
                              const std::string& value) {
  std::string list = "[";
  for (size_t i = 0; i < servers.size(); ++i)
    list += (i > 0 ? ", " : "") + servers[i];
  list += "]";
  return "update name server config success!" + list + '\n' + key + " : "
         + value + '\n';
}

std::string pretty_json(const std::string& text) {
  auto doc = json::parse(text, nullptr, false);
  if (doc.is_discarded())
    return text + '\n';
  return doc.dump(2) + '\n';
}

} // namespace rmq::admin
