#include "tests/system/broker_system_support.hpp"

#include <set>

#include <doctest/doctest.h>

namespace rmq::test {

broker_process start_broker_node(const broker_launch& how) {
  REQUIRE_FALSE(how.store_dir.empty());
  broker_process result;
  auto port = how.port != 0 ? how.port : unused_port();
  std::vector<std::string> argv{bin_dir() + "/rmq-node",
                                "--role=broker",
                                "--name=" + how.name,
                                "--cluster=" + how.cluster,
                                "--namesrv=" + join_addrs(how.namesrvs),
                                "--port=" + std::to_string(port),
                                "--store-dir=" + how.store_dir,
                                "--flush-disk-type=" + how.flush,
                                "--mapped-file-size-commit-log=67108864",
                                std::string{"--auto-create-topic-enable="}
                                  + (how.auto_create_topic ? "true" : "false"),
                                "--log-level=warn"};
  if (!how.tls_dir.empty())
    argv.push_back("--tls-dir=" + how.tls_dir);
  argv.insert(argv.end(), how.extra.begin(), how.extra.end());
  result.proc = std::make_unique<child_process>(std::move(argv));
  std::string rest;
  REQUIRE(result.proc->wait_for(
    "broker " + how.name + " listening on 127.0.0.1:", rest));
  result.port = static_cast<uint16_t>(std::stoi(rest));
  std::set<std::string> registered;
  std::string addr;
  while (registered.size() < how.namesrvs.size()) {
    REQUIRE(result.proc->wait_for("registered with ", addr));
    registered.insert(addr);
  }
  return result;
}

caf::expected<send_result>
send_plain(remote_client& client, const broker_actor& front,
           const std::string& topic, const std::string& body,
           int32_t queue_id) {
  send_message_request req;
  req.producer_group = "SystemTestProducer";
  req.topic = topic;
  req.queue_id = queue_id;
  req.body = body;
  return client.ask<send_result>(front, std::move(req));
}

} // namespace rmq::test
