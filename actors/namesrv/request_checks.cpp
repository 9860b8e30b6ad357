#include "actors/namesrv/request_checks.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/validators.hpp"

namespace rmq {

caf::error check_broker(const std::string& cluster, const std::string& name,
                        const std::string& addr, int64_t id) {
  if (auto err = check_broker_name(cluster, "cluster name"))
    return err;
  if (auto err = check_broker_name(name, "broker name"))
    return err;
  if (id < 0)
    return make_error(errc::invalid_parameter, "negative broker id");
  return check_address(addr, "broker address");
}

caf::error check_kv(const std::string& name_space, const std::string& key) {
  if (auto err = check_kv_name(name_space, "namespace"))
    return err;
  return check_kv_name(key, "key");
}

caf::error check_registration(const register_broker_request& req) {
  if (auto err = check_broker(req.cluster_name, req.broker_name,
                              req.broker_addr, req.broker_id))
    return err;
  if (!req.ha_server_addr.empty())
    if (auto err = check_address(req.ha_server_addr, "HA server address"))
      return err;
  if (req.heartbeat_timeout_ms < 0)
    return make_error(errc::invalid_parameter, "negative heartbeat timeout");
  for (auto& addr : req.filter_server_list)
    if (auto err = check_address(addr, "filter server address"))
      return err;
  for (auto& cfg : req.topics) {
    if (auto err = check_registered_topic(cfg.topic_name))
      return err;
    if (!perm::is_valid(cfg.perm))
      return make_error(errc::invalid_parameter,
                        "topic " + cfg.topic_name + ": perm "
                          + std::to_string(cfg.perm) + " is not in 0..7");
    if (cfg.read_queue_nums < 0 || cfg.write_queue_nums < 0)
      return make_error(errc::invalid_parameter,
                        "topic " + cfg.topic_name + ": negative queue count");
  }
  return {};
}

caf::error check_register_topic(const register_topic_request& req) {
  if (auto err = check_topic(req.topic))
    return err;
  for (auto& qd : req.queue_datas) {
    if (auto err = check_broker_name(qd.broker_name, "broker name"))
      return err;
    if (!perm::is_valid(qd.perm))
      return make_error(errc::invalid_parameter, "perm not in 0..7");
    if (qd.read_queue_nums < 0 || qd.write_queue_nums < 0)
      return make_error(errc::invalid_parameter, "negative queue count");
  }
  return {};
}

} // namespace rmq
