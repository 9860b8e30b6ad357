#include "runtime/remoting/route_body.hpp"

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

} // namespace rmq::remoting
