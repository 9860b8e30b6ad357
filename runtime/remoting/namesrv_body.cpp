#include "runtime/remoting/namesrv_body.hpp"

#include <algorithm>
#include <iterator>
#include <set>
#include <string>

namespace rmq::remoting {

using json = nlohmann::json;

json broker_addrs_json(const std::map<int64_t, std::string>& addrs) {
  auto out = json::object();
  for (auto& [id, addr] : addrs)
    out[std::to_string(id)] = addr;
  return out;
}

json to_json(const queue_data& qd) {
  return {{"brokerName", qd.broker_name},
          {"readQueueNums", qd.read_queue_nums},
          {"writeQueueNums", qd.write_queue_nums},
          {"perm", qd.perm},
          {"topicSysFlag", qd.topic_sys_flag}};
}

json to_json(const broker_data& bd) {
  json out{{"cluster", bd.cluster},
           {"brokerName", bd.broker_name},
           {"brokerAddrs", broker_addrs_json(bd.broker_addrs)},
           {"enableActingMaster", bd.enable_acting_master}};
  if (!bd.zone_name.empty())
    out["zoneName"] = bd.zone_name;
  return out;
}

json to_json(const topic_route_data& route) {
  json out;
  if (!route.order_topic_conf.empty())
    out["orderTopicConf"] = route.order_topic_conf;
  out["queueDatas"] = json::array();
  for (auto& qd : route.queue_datas)
    out["queueDatas"].push_back(to_json(qd));
  out["brokerDatas"] = json::array();
  for (auto& bd : route.broker_datas)
    out["brokerDatas"].push_back(to_json(bd));
  out["filterServerTable"] = json::object();
  for (auto& [addr, servers] : route.filter_server_table)
    out["filterServerTable"][addr] = servers;
  return out;
}

namespace {

// Swaps in the remoting addresses; false when none is left.
bool to_remoting(broker_data& bd) {
  bd.broker_addrs = std::move(bd.remoting_addrs);
  bd.remoting_addrs.clear();
  return !bd.broker_addrs.empty();
}

} // namespace

topic_route_data remoting_view(topic_route_data route) {
  std::map<std::string, std::string> addr_of; // CAF -> remoting
  std::set<std::string> reachable;
  std::vector<broker_data> brokers;
  for (auto& bd : route.broker_datas) {
    for (auto& [id, addr] : bd.broker_addrs) {
      auto r = bd.remoting_addrs.find(id);
      if (r != bd.remoting_addrs.end())
        addr_of[addr] = r->second;
    }
    if (to_remoting(bd)) {
      reachable.insert(bd.broker_name);
      brokers.push_back(std::move(bd));
    }
  }
  route.broker_datas = std::move(brokers);
  auto& qs = route.queue_datas;
  qs.erase(std::remove_if(qs.begin(), qs.end(),
                          [&](const queue_data& qd) {
                            return reachable.count(qd.broker_name) == 0;
                          }),
           qs.end());
  std::map<std::string, std::vector<std::string>> filters;
  for (auto& [addr, servers] : route.filter_server_table) {
    auto r = addr_of.find(addr);
    if (r != addr_of.end())
      filters[r->second] = std::move(servers);
  }
  route.filter_server_table = std::move(filters);
  return route;
}

cluster_info remoting_view(cluster_info info) {
  for (auto i = info.broker_addr_table.begin();
       i != info.broker_addr_table.end();)
    i = to_remoting(i->second) ? std::next(i) : info.broker_addr_table.erase(i);
  for (auto& [cluster, names] : info.cluster_addr_table)
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&](const std::string& name) {
                                 return info.broker_addr_table.count(name) == 0;
                               }),
                names.end());
  return info;
}

namespace {

// The address at `to` of the id whose address at `from` is `addr`.
std::string translate(const cluster_info& info, const std::string& addr,
                      std::map<int64_t, std::string> broker_data::*from,
                      std::map<int64_t, std::string> broker_data::*to) {
  for (auto& [name, bd] : info.broker_addr_table)
    for (auto& [id, a] : bd.*from)
      if (a == addr) {
        auto i = (bd.*to).find(id);
        return i != (bd.*to).end() ? i->second : std::string{};
      }
  return {};
}

} // namespace

std::string remoting_addr_of(const cluster_info& info,
                             const std::string& addr) {
  return translate(info, addr, &broker_data::broker_addrs,
                   &broker_data::remoting_addrs);
}

std::string caf_addr_of(const cluster_info& info, const std::string& addr) {
  return translate(info, addr, &broker_data::remoting_addrs,
                   &broker_data::broker_addrs);
}

bool from_json(const std::string& text, topic_route_data& out) try {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return false;
  auto qds = j.find("queueDatas");
  if (qds == j.end() || !qds->is_array())
    return false;
  for (auto& x : *qds) {
    if (!x.is_object())
      return false;
    queue_data qd;
    qd.broker_name = x.value("brokerName", "");
    qd.read_queue_nums = x.value("readQueueNums", 0);
    qd.write_queue_nums = x.value("writeQueueNums", 0);
    qd.perm = x.value("perm", 0);
    // Older NameServers spelled it topicSynFlag.
    qd.topic_sys_flag = x.value("topicSysFlag", x.value("topicSynFlag", 0));
    out.queue_datas.push_back(std::move(qd));
  }
  return true;
} catch (const json::exception&) {
  // A field of the wrong type.
  return false;
}

json to_json(const data_version& v) {
  return {{"counter", v.counter},
          {"stateVersion", v.state_version},
          {"timestamp", v.timestamp}};
}

bool register_body_from_json(const std::string& text,
                             register_broker_request& out,
                             std::string& err) try {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    err = "the body is no RegisterBrokerBody";
    return false;
  }
  if (auto w = j.find("topicConfigSerializeWrapper");
      w != j.end() && w->is_object()) {
    if (auto v = w->find("dataVersion"); v != w->end() && v->is_object()) {
      out.version.counter = v->value("counter", int64_t{0});
      out.version.state_version = v->value("stateVersion", int64_t{0});
      out.version.timestamp = v->value("timestamp", int64_t{0});
    }
    if (auto t = w->find("topicConfigTable"); t != w->end() && t->is_object())
      for (auto& [name, tc] : t->items()) {
        topic_config c;
        c.topic_name = tc.value("topicName", name);
        c.read_queue_nums = tc.value("readQueueNums", 16);
        c.write_queue_nums = tc.value("writeQueueNums", 16);
        c.perm = tc.value("perm", int32_t{perm::read_write});
        c.topic_filter_type = tc.value("topicFilterType",
                                       std::string{"SINGLE_TAG"})
                                  == "MULTI_TAG"
                                ? 1
                                : 0;
        c.topic_sys_flag = tc.value("topicSysFlag", 0);
        c.order = tc.value("order", false);
        out.topics.push_back(std::move(c));
      }
  }
  if (auto f = j.find("filterServerList"); f != j.end() && f->is_array()) {
    out.has_filter_servers = true;
    out.filter_server_list = f->get<std::vector<std::string>>();
  }
  return true;
} catch (const json::exception& e) {
  err = std::string{"the body is no RegisterBrokerBody: "} + e.what();
  return false;
}

json topic_config_wrapper_json(const std::vector<topic_config>& topics,
                               const data_version& version) {
  auto table = json::object();
  for (auto& c : topics)
    table[c.topic_name]
      = {{"attributes", json::object()},
         {"order", c.order},
         {"perm", c.perm},
         {"readQueueNums", c.read_queue_nums},
         {"topicFilterType",
          c.topic_filter_type == 1 ? "MULTI_TAG" : "SINGLE_TAG"},
         {"topicName", c.topic_name},
         {"topicSysFlag", c.topic_sys_flag},
         {"writeQueueNums", c.write_queue_nums}};
  return {{"dataVersion", to_json(version)},
          {"topicConfigTable", std::move(table)}};
}

json register_body_json(const register_broker_request& req) {
  return {{"filterServerList", req.filter_server_list},
          {"topicConfigSerializeWrapper",
           topic_config_wrapper_json(req.topics, req.version)}};
}

json to_json(const cluster_info& info) {
  auto brokers = json::object();
  for (auto& [name, bd] : info.broker_addr_table)
    brokers[name] = to_json(bd);
  auto clusters = json::object();
  for (auto& [cluster, names] : info.cluster_addr_table)
    clusters[cluster] = names;
  return {{"brokerAddrTable", std::move(brokers)},
          {"clusterAddrTable", std::move(clusters)}};
}

json topic_list_json(const std::vector<std::string>& topics,
                     const std::string& broker_addr) {
  json out{{"topicList", topics}};
  if (!broker_addr.empty())
    out["brokerAddr"] = broker_addr;
  return out;
}

json kv_table_json(const std::map<std::string, std::string>& kv) {
  return {{"table", kv}};
}

json to_json(const broker_member_group& group) {
  return {{"brokerMemberGroup",
           {{"cluster", group.cluster},
            {"brokerName", group.broker_name},
            {"brokerAddrs", broker_addrs_json(group.broker_addrs)}}}};
}

std::string properties_text(const std::map<std::string, std::string>& kv) {
  std::string out;
  for (auto& [k, v] : kv)
    out += k + "=" + v + "\n";
  return out;
}

std::map<std::string, std::string>
parse_properties_text(const std::string& text) {
  auto trim = [](std::string s) {
    auto b = s.find_first_not_of(" \t\r");
    auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string{} : s.substr(b, e - b + 1);
  };
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string::npos)
      end = text.size();
    auto line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line[0] == '#' || line[0] == '!')
      continue;
    auto sep = line.find_first_of("=:");
    if (sep == std::string::npos)
      out[line] = "";
    else
      out[trim(line.substr(0, sep))] = trim(line.substr(sep + 1));
  }
  return out;
}

} // namespace rmq::remoting
