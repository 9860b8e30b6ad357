// Helpers for system tests with real broker processes
// (`rmq-node --role=broker`): start one on a free port with its own store
// dir, wait until it registered with every NameServer, connect to its
// front actor from the test process (tests/system/namesrv_system_support).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/broker/broker.hpp"
#include "tests/support/child_process.hpp"
#include "tests/system/namesrv_system_support.hpp"

namespace rmq::test {

/// How `start_broker_node` runs a broker.
struct broker_launch {
  std::string name = "broker-a";
  std::string cluster = "DefaultCluster";
  /// NameServer addresses; the broker must register with each.
  std::vector<std::string> namesrvs;
  /// Required: the store root (kept across restarts by the test).
  std::string store_dir;
  /// --host: the address it listens on.
  std::string host = "127.0.0.1";
  /// 0 picks a free port (both).
  uint16_t port = 0;
  uint16_t remoting_port = 0;
  /// ASYNC_FLUSH or SYNC_FLUSH.
  std::string flush = "ASYNC_FLUSH";
  std::string tls_dir;
  bool auto_create_topic = true;
  /// More flags, e.g. "--register-interval-ms=10000".
  std::vector<std::string> extra;
  /// A command it runs under, e.g. {"/usr/bin/prlimit", "--nofile=256"}.
  std::vector<std::string> prefix;
  /// false: do not wait for the registrations (the NameServers are down).
  bool wait_registered = true;
  /// true: its stderr (the log) joins stdout, for tests that read the log.
  bool log_to_stdout = false;
};

/// A running broker process, killed with the object.
struct broker_process {
  std::unique_ptr<child_process> proc;
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  /// Its remoting port (mutual TLS under TLS).
  uint16_t remoting_port = 0;
  /// The lines it printed until it listened and registered (with
  /// `log_to_stdout`, its log of the start).
  std::vector<std::string> start_lines;

  /// Whether a line it printed contains `what`: the start's, then new
  /// ones for up to `timeout`.
  bool said(const std::string& what,
            std::chrono::milliseconds timeout = std::chrono::seconds{10});

  std::string addr() const {
    return host + ":" + std::to_string(port);
  }
};

/// The launch of one broker that registers with `ns` and stores in
/// `store_dir`, with the disk-space checks off: the tests are not about a
/// nearly full shared disk.
broker_launch one_broker(const namesrv_process& ns,
                         const std::string& store_dir);

/// The command line of `rmq-node --role=broker` as `how` says, on `port`.
std::vector<std::string> broker_argv(const broker_launch& how, uint16_t port);

/// Starts `rmq-node --role=broker` as `how` says (64 MiB segments);
/// REQUIREs that it listens and registered with every NameServer in
/// `how.namesrvs` (rmq-node prints the registrar's events on stdout).
broker_process start_broker_node(const broker_launch& how);

/// Starts it again as `how` says, on the ports it had (SO_REUSEADDR: right
/// after SIGKILL or SIGTERM); replaces `proc`.
void restart_broker_node(broker_process& broker, broker_launch how);

/// Connects to the broker's front on `port`; REQUIREs it.
broker_actor connect_broker(remote_client& client, uint16_t port);

/// Creates or updates `topic` with `queues` read and write queues on the
/// broker (UPDATE_AND_CREATE_TOPIC); REQUIREs success.
void create_topic(remote_client& client, const broker_actor& front,
                  const std::string& topic, int32_t queues);

/// Creates `topic` as create_topic does and waits (10 s) until the
/// NameServer on `namesrv_port` routes it to one broker; REQUIREs both.
void create_routed_topic(remote_client& client, const broker_actor& front,
                         uint16_t namesrv_port, const std::string& topic,
                         int32_t queues);

/// The broker names of `topic`'s queue datas on the NameServer at `port`;
/// empty when it does not answer or does not know the topic.
std::set<std::string> route_brokers(remote_client& client, uint16_t port,
                                    const std::string& topic);

/// The bodies of the records of one pull's buffer, in order; REQUIREs that
/// every record decodes (CRC checked).
std::vector<std::string> pulled_bodies(const pull_message_result& res);

/// Waits (bounded, 5 s) until queue `queue_id` of `topic` reaches
/// `max_offset`: a send is acknowledged once stored, and the queue service
/// makes it readable a moment later (RocketMQ's reput lag).
bool wait_readable(remote_client& client, const broker_actor& front,
                   const std::string& topic, int32_t queue_id,
                   int64_t max_offset);

/// Pulls queue `queue_id` of `topic` from offset 0 to its end; answers
/// every body in order (REQUIREs each pull to succeed).
std::vector<std::string> pull_all(remote_client& client,
                                  const broker_actor& front,
                                  const std::string& topic, int32_t queue_id);

/// A pulled record's owned fields.
struct pulled_record {
  std::string body;
  int64_t store_timestamp = 0;
  /// Encoded `k\x01v\x02...` (find_property reads them).
  std::string properties;
};

/// Every record of queues 0 .. `queues` - 1 of `topic`, each from offset 0
/// to its end (REQUIREs each pull to succeed and every record to decode).
std::vector<pulled_record>
pull_records(remote_client& client, const broker_actor& front,
             const std::string& topic, int32_t queues);

/// Messages stored in queues 0 .. `queues` - 1 of `topic` (the sum of
/// their max offsets); -1 when the broker does not answer.
int64_t stored_count(remote_client& client, const broker_actor& front,
                     const std::string& topic, int32_t queues);

/// The value of `key` in the broker's brokerStatus table; empty when the
/// broker does not answer or has no such key.
std::string broker_status(remote_client& client, const broker_actor& front,
                          const std::string& key);

/// The dump of the actor named `name` anywhere in a node's dump (the
/// object whose "actor" is `name`); nullptr if there is none.
const nlohmann::json* find_actor(const nlohmann::json& dump,
                                 const std::string& name);

/// The value of `key` in the output of `rmq-admin brokerStatus -b`
/// ("%-32s: %s" lines); empty if no line has it.
std::string admin_status_value(const std::string& out, const std::string& key);

/// Sends a plain message of `body` to `topic` (queue id < 0: any queue)
/// through `front`; answers the broker's result or error.
caf::expected<send_result>
send_plain(remote_client& client, const broker_actor& front,
           const std::string& topic, const std::string& body,
           int32_t queue_id = -1);

} // namespace rmq::test
