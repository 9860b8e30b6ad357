#include "tests/system/broker_system_support.hpp"

#include <chrono>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "messages/common/errors.hpp"
#include "runtime/message/message_record.hpp"
#include "tests/support/wait_until.hpp"

namespace rmq::test {

namespace {

constexpr std::chrono::seconds start_timeout{30};

} // namespace

std::vector<std::string> broker_argv(const broker_launch& how, uint16_t port) {
  std::vector<std::string> argv{bin_dir() + "/rmq-node",
                                "--role=broker",
                                "--name=" + how.name,
                                "--host=" + how.host,
                                "--cluster=" + how.cluster,
                                "--namesrv=" + join_addrs(how.namesrvs),
                                "--port=" + std::to_string(port),
                                "--remoting-port="
                                  + std::to_string(how.remoting_port),
                                "--store-dir=" + how.store_dir,
                                "--flush-disk-type=" + how.flush,
                                "--mapped-file-size-commit-log=67108864",
                                std::string{"--auto-create-topic-enable="}
                                  + (how.auto_create_topic ? "true" : "false"),
                                "--log-level=warn"};
  if (!how.tls_dir.empty())
    argv.push_back("--tls-dir=" + how.tls_dir);
  argv.insert(argv.end(), how.extra.begin(), how.extra.end());
  argv.insert(argv.begin(), how.prefix.begin(), how.prefix.end());
  if (how.log_to_stdout)
    argv.insert(argv.begin(), {"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1"});
  return argv;
}

broker_process start_broker_node(const broker_launch& how) {
  REQUIRE_FALSE(how.store_dir.empty());
  broker_process result;
  result.host = how.host;
  auto port = how.port != 0 ? how.port : unused_port();
  auto argv = broker_argv(how, port);
  result.proc = std::make_unique<child_process>(std::move(argv));
  // rmq-node prints "listening" and only then lets the registrar
  // register, so that no NameServer hands out an address nobody listens
  // on: a "registered with" line first fails the start. Bounded
  // generously: a start under CI load once took more than 10 s.
  // "... on HOST:PORT", HOST being --host (127.0.0.1, or 0.0.0.0).
  const std::string listening = "broker " + how.name + " listening on ";
  const std::string remoting = "broker remoting on ";
  auto port_of = [](const std::string& line) {
    return static_cast<uint16_t>(std::stoi(line.substr(line.rfind(':') + 1)));
  };
  const std::string registered_with = "registered with ";
  auto deadline = std::chrono::steady_clock::now() + start_timeout;
  bool listens = false;
  // The remoting line comes between "listening" and the registrations.
  bool remoting_known = false;
  std::set<std::string> registered;
  while (!listens || !remoting_known
         || (how.wait_registered && registered.size() < how.namesrvs.size())) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    REQUIRE_MESSAGE(left.count() > 0,
                    "broker " << how.name << " did not start: listening "
                              << listens << ", registered with "
                              << registered.size() << " of "
                              << how.namesrvs.size());
    std::string line;
    REQUIRE_MESSAGE(result.proc->read_line(line, left),
                    "broker " << how.name << " exited or said nothing; it "
                              << "said: "
                              << (result.start_lines.empty()
                                    ? std::string{}
                                    : result.start_lines.back()));
    result.start_lines.push_back(line);
    if (line.compare(0, listening.size(), listening) == 0) {
      result.port = port_of(line);
      listens = true;
    } else if (line.compare(0, remoting.size(), remoting) == 0) {
      result.remoting_port = port_of(line);
      remoting_known = true;
    } else if (line.compare(0, registered_with.size(), registered_with) == 0) {
      CHECK_MESSAGE(listens, "broker " << how.name << " registered before "
                                       << "its port was published");
      registered.insert(line.substr(registered_with.size()));
    }
  }
  return result;
}

bool broker_process::said(const std::string& what,
                          std::chrono::milliseconds timeout) {
  for (auto& line : start_lines)
    if (line.find(what) != std::string::npos)
      return true;
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline)
    if (proc->read_line(line, std::chrono::milliseconds{200})) {
      start_lines.push_back(line);
      if (line.find(what) != std::string::npos)
        return true;
    }
  return false;
}

void restart_broker_node(broker_process& broker, broker_launch how) {
  how.port = broker.port;
  how.remoting_port = broker.remoting_port;
  broker.proc.reset(); // SIGKILL and reap, if it still runs
  auto again = start_broker_node(how);
  CHECK_EQ(again.port, broker.port);
  broker = std::move(again);
}

broker_actor connect_broker(remote_client& client, uint16_t port) {
  auto front = client.try_connect_to<broker_actor>(port);
  REQUIRE_MESSAGE(front, describe(front.error()));
  return *front;
}

broker_launch one_broker(const namesrv_process& ns,
                         const std::string& store_dir) {
  broker_launch how;
  how.namesrvs = {ns.addr()};
  how.store_dir = store_dir;
  how.extra = {"--disk-space-warning-level-ratio=1"};
  return how;
}

void create_topic(remote_client& client, const broker_actor& front,
                  const std::string& topic, int32_t queues) {
  update_topic_request req;
  req.config.topic_name = topic;
  req.config.read_queue_nums = queues;
  req.config.write_queue_nums = queues;
  auto version = client.ask<data_version>(front, std::move(req));
  REQUIRE_MESSAGE(version, describe(version.error()));
}

void create_routed_topic(remote_client& client, const broker_actor& front,
                         uint16_t namesrv_port, const std::string& topic,
                         int32_t queues) {
  create_topic(client, front, topic, queues);
  REQUIRE(wait_until(
    [&] { return route_brokers(client, namesrv_port, topic).size() == 1; },
    std::chrono::seconds{10}));
}

std::set<std::string> route_brokers(remote_client& client, uint16_t port,
                                    const std::string& topic) {
  std::set<std::string> out;
  auto ns = client.try_connect(port);
  if (!ns)
    return out;
  auto route = client.ask<topic_route_data>(*ns, get_route_info_request{topic},
                                            std::chrono::seconds{2});
  if (route)
    for (auto& qd : route->queue_datas)
      out.insert(qd.broker_name);
  return out;
}

std::vector<std::string> pulled_bodies(const pull_message_result& res) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < res.buffer.size()) {
    record_view rec;
    auto st = decode_record(res.buffer.data() + pos, res.buffer.size() - pos,
                            rec);
    REQUIRE(st == decode_status::ok);
    out.emplace_back(rec.body);
    pos += static_cast<size_t>(rec.total_size);
  }
  CHECK_EQ(out.size(), static_cast<size_t>(res.message_count));
  return out;
}

bool wait_readable(remote_client& client, const broker_actor& front,
                   const std::string& topic, int32_t queue_id,
                   int64_t max_offset) {
  return wait_until(
    [&] {
      auto offs
        = client.ask<queue_offsets>(front, get_offset_request{topic, queue_id});
      return offs && offs->max_offset >= max_offset;
    },
    std::chrono::seconds{5});
}

std::vector<std::string> pull_all(remote_client& client,
                                  const broker_actor& front,
                                  const std::string& topic, int32_t queue_id) {
  std::vector<std::string> out;
  pull_message_request req;
  req.consumer_group = "SystemTestConsumer";
  req.topic = topic;
  req.queue_id = queue_id;
  for (;;) {
    auto got = client.ask<pull_message_result>(front, req);
    REQUIRE_MESSAGE(got, describe(got.error()));
    if (got->status != static_cast<uint8_t>(pull_status::found)) {
      CHECK_EQ(got->status, static_cast<uint8_t>(pull_status::no_new_msg));
      return out;
    }
    auto bodies = pulled_bodies(*got);
    REQUIRE_FALSE(bodies.empty());
    out.insert(out.end(), bodies.begin(), bodies.end());
    req.queue_offset = got->next_begin_offset;
  }
}

std::vector<pulled_record>
pull_records(remote_client& client, const broker_actor& front,
             const std::string& topic, int32_t queues) {
  std::vector<pulled_record> out;
  for (int32_t q = 0; q < queues; ++q) {
    pull_message_request req;
    req.consumer_group = "SystemTestConsumer";
    req.topic = topic;
    req.queue_id = q;
    req.max_msg_nums = 32;
    for (;;) {
      auto got = client.ask<pull_message_result>(front, req);
      REQUIRE_MESSAGE(got, describe(got.error()));
      if (got->status != static_cast<uint8_t>(pull_status::found))
        break;
      auto recs = decode_records(got->buffer);
      REQUIRE_MESSAGE(recs, describe(recs.error()));
      for (auto& rec : *recs)
        out.push_back({std::string{rec.body}, rec.store_timestamp,
                       std::string{rec.properties}});
      req.queue_offset = got->next_begin_offset;
    }
  }
  return out;
}

int64_t stored_count(remote_client& client, const broker_actor& front,
                     const std::string& topic, int32_t queues) {
  int64_t n = 0;
  for (int32_t q = 0; q < queues; ++q) {
    auto got = client.ask<queue_offsets>(front, get_offset_request{topic, q});
    if (!got)
      return -1;
    n += got->max_offset;
  }
  return n;
}

std::string broker_status(remote_client& client, const broker_actor& front,
                          const std::string& key) {
  auto got = client.ask<broker_runtime_info>(front,
                                             broker_runtime_info_request{});
  if (!got)
    return "";
  auto i = got->table.find(key);
  return i == got->table.end() ? "" : i->second;
}

const nlohmann::json* find_actor(const nlohmann::json& dump,
                                 const std::string& name) {
  if (dump.is_object()) {
    if (auto i = dump.find("actor"); i != dump.end() && *i == name)
      return &dump;
    for (auto& [key, value] : dump.items())
      if (auto found = find_actor(value, name))
        return found;
  } else if (dump.is_array()) {
    for (auto& value : dump)
      if (auto found = find_actor(value, name))
        return found;
  }
  return nullptr;
}

std::string admin_status_value(const std::string& out, const std::string& key) {
  size_t pos = 0;
  while (pos < out.size()) {
    auto end = out.find('\n', pos);
    if (end == std::string::npos)
      end = out.size();
    auto line = out.substr(pos, end - pos);
    pos = end + 1;
    auto colon = line.find(": ");
    if (colon == std::string::npos)
      continue;
    auto name = line.substr(0, colon);
    while (!name.empty() && name.back() == ' ')
      name.pop_back();
    if (name == key)
      return line.substr(colon + 2);
  }
  return "";
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
