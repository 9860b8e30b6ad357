// rmq-node --role=broker: a broker until a signal or a failure. It picks
// its port before it listens, because it registers its address with the
// NameServers as it starts.
#include <chrono>
#include <csignal>
#include <cstdint>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "caf/actor_system.hpp"
#include "caf/io/middleman.hpp"

#include "actors/broker/node/broker_node.hpp"
#include "actors/broker/node/broker_properties.hpp"
#include "actors/broker/node/broker_remoting.hpp"
#include "actors/common/bench_echo.hpp"
#include "apps/rmq-node/node_options.hpp"
#include "apps/rmq-node/role_file.hpp"
#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/net/free_port.hpp"
#include "runtime/process/publish.hpp"

namespace rmq::node {

namespace {

// Registrar events come from actor threads while the main thread prints
// the listening line: whole lines under one lock, or a reader sees them
// interleaved mid-line.
void print_line(const std::string& line) {
  static std::mutex mx;
  std::lock_guard<std::mutex> guard{mx};
  std::cout << line << std::endl;
}

// `broker_id` and `broker_role`: the flags', or what a promote / demote
// kept (role_file.hpp).
caf::expected<broker_options>
to_broker_options(const options& cfg, int64_t broker_id,
                  const std::string& broker_role) {
  broker_options opts;
  opts.broker_name = cfg.broker_name;
  opts.cluster_name = cfg.cluster_name;
  opts.broker_id = broker_id;
  opts.listen_host = cfg.host;
  opts.broker_ip1 = cfg.broker_ip1;
  opts.broker_ip2 = cfg.broker_ip2;
  opts.store_dir = cfg.store_dir;
  opts.namesrv_addr = cfg.namesrv;
  if (cfg.flush_disk_type == "ASYNC_FLUSH")
    opts.flush = storage::flush_mode::async;
  else if (cfg.flush_disk_type == "SYNC_FLUSH")
    opts.flush = storage::flush_mode::sync;
  else
    return make_error(errc::invalid_parameter,
                      "--flush-disk-type must be ASYNC_FLUSH or SYNC_FLUSH, "
                      "not "
                        + cfg.flush_disk_type);
  if (broker_id < 0)
    return make_error(errc::invalid_parameter, "--broker-id must be >= 0");
  // RocketMQ's brokerRole: a master is id 0, a slave any other id.
  auto role = broker_role.empty() ? (broker_id == 0 ? "ASYNC_MASTER" : "SLAVE")
                                  : broker_role;
  if (role != "ASYNC_MASTER" && role != "SYNC_MASTER" && role != "SLAVE")
    return make_error(errc::invalid_parameter,
                      "--broker-role must be ASYNC_MASTER, SYNC_MASTER or "
                      "SLAVE, not "
                        + role);
  if ((role == "SLAVE") != (broker_id != 0))
    return make_error(errc::invalid_parameter,
                      "--broker-role " + role + " with --broker-id "
                        + std::to_string(broker_id)
                        + ": a master has id 0, a slave an id above 0");
  opts.store.sync_replication = role == "SYNC_MASTER";
  if (cfg.register_interval_ms < 10'000 || cfg.register_interval_ms > 60'000)
    // RocketMQ clamps registerNameServerPeriod to 10..60 s.
    return make_error(errc::invalid_parameter,
                      "--register-interval-ms must be in 10000..60000");
  opts.register_interval = std::chrono::milliseconds{cfg.register_interval_ms};
  opts.auto_create_topic = cfg.auto_create_topic_enable;
  opts.auto_create_subscription_group = cfg.auto_create_subscription_group;
  opts.store_reply_message_enable = cfg.store_reply_message_enable;
  if (cfg.mapped_file_size_commit_log < 64 * 1024)
    return make_error(errc::invalid_parameter,
                      "--mapped-file-size-commit-log must be >= 65536");
  opts.store.segment_size
    = static_cast<size_t>(cfg.mapped_file_size_commit_log);
  if (cfg.mapped_file_size_consume_queue < 20 * 1024
      || cfg.mapped_file_size_consume_queue % 20 != 0)
    return make_error(errc::invalid_parameter,
                      "--mapped-file-size-consume-queue must be a multiple "
                      "of 20 and >= 20480");
  opts.store.cq_units_per_file
    = static_cast<size_t>(cfg.mapped_file_size_consume_queue / 20);
  if (cfg.max_message_size < 1
      || cfg.max_message_size > cfg.mapped_file_size_commit_log / 2)
    return make_error(errc::invalid_parameter,
                      "--max-message-size must be in 1..half a segment");
  opts.store.max_message_size = static_cast<size_t>(cfg.max_message_size);
  if (cfg.disk_space_warning_level_ratio <= 0
      || cfg.disk_space_warning_level_ratio > 1)
    return make_error(errc::invalid_parameter,
                      "--disk-space-warning-level-ratio must be in (0, 1]");
  opts.store.disk_full_ratio = cfg.disk_space_warning_level_ratio;
  if (cfg.disk_space_clean_forcibly_ratio <= 0
      || cfg.disk_space_clean_forcibly_ratio > 1)
    return make_error(errc::invalid_parameter,
                      "--disk-space-clean-forcibly-ratio must be in (0, 1]");
  opts.store.disk_clean_ratio = cfg.disk_space_clean_forcibly_ratio;
  opts.store.clean_forcibly = cfg.clean_file_forcibly_enable;
  if (cfg.file_reserved_time < 1)
    return make_error(errc::invalid_parameter,
                      "--file-reserved-time must be >= 1 (hours)");
  opts.store.retention = std::chrono::hours{cfg.file_reserved_time};
  if (cfg.max_transfer_count_on_message_in_memory < 1
      || cfg.max_transfer_count_on_message_in_memory > 65'536
      || cfg.max_transfer_bytes_on_message_in_memory < 1
      || cfg.max_transfer_bytes_on_message_in_memory > INT32_MAX)
    return make_error(errc::invalid_parameter,
                      "--max-transfer-count-on-message-in-memory must be in "
                      "1..65536 and --max-transfer-bytes-on-message-in-memory "
                      "in 1..2147483647");
  opts.max_transfer_count
    = static_cast<int32_t>(cfg.max_transfer_count_on_message_in_memory);
  opts.max_transfer_bytes
    = static_cast<int32_t>(cfg.max_transfer_bytes_on_message_in_memory);
  if (cfg.access_message_in_memory_max_ratio < 0
      || cfg.access_message_in_memory_max_ratio > 100)
    return make_error(errc::invalid_parameter,
                      "--access-message-in-memory-max-ratio must be in "
                      "0..100");
  opts.store.in_memory_max_ratio
    = static_cast<int32_t>(cfg.access_message_in_memory_max_ratio);
  opts.slave_read_enable = cfg.slave_read_enable;
  if (cfg.sync_flush_timeout_ms < 1)
    return make_error(errc::invalid_parameter,
                      "--sync-flush-timeout-ms must be > 0");
  opts.store.sync_flush_timeout
    = std::chrono::milliseconds{cfg.sync_flush_timeout_ms};
  if (cfg.rebalance_lock_max_live_time_ms < 1)
    return make_error(errc::invalid_parameter,
                      "--rebalance-lock-max-live-time-ms must be > 0");
  opts.rebalance_lock_max_live_time
    = std::chrono::milliseconds{cfg.rebalance_lock_max_live_time_ms};
  if (cfg.transaction_timeout_ms < 0 || cfg.transaction_check_interval_ms < 1
      || cfg.transaction_check_max < 1 || cfg.transaction_check_max > INT32_MAX)
    return make_error(errc::invalid_parameter,
                      "--transaction-timeout-ms must be >= 0, "
                      "--transaction-check-interval-ms and "
                      "--transaction-check-max > 0");
  opts.reject_transaction_message = cfg.reject_transaction_message;
  opts.transaction_timeout
    = std::chrono::milliseconds{cfg.transaction_timeout_ms};
  opts.transaction_check_interval
    = std::chrono::milliseconds{cfg.transaction_check_interval_ms};
  opts.transaction_check_max = static_cast<int32_t>(cfg.transaction_check_max);
  // RocketMQ rounds other precisions to one of these; a typo should show.
  auto p = cfg.timer_precision_ms;
  if (p != 100 && p != 200 && p != 500 && p != 1000)
    return make_error(errc::invalid_parameter,
                      "--timer-precision-ms must be 100, 200, 500 or 1000");
  if (cfg.timer_max_delay_sec < 1 || cfg.timer_max_delay_sec > 366 * 86'400)
    return make_error(errc::invalid_parameter,
                      "--timer-max-delay-sec must be in 1..31622400");
  opts.timer.max_delay_sec = cfg.timer_max_delay_sec;
  opts.timer.precision_ms = p;
  return opts;
}

// The port a flag asks for (-1: `fallback`, 0: a free one), checked free
// before the store is opened: the same command started twice exits here
// without touching the live broker's files (the store's lock is the second
// guard, for another port on the same store). nullopt, said on stderr,
// when it cannot be had.
std::optional<uint16_t> listen_port(const std::string& host, int32_t flag,
                                    uint16_t fallback) {
  uint16_t port = fallback;
  if (flag == 0) {
    auto picked = pick_free_port(host);
    if (!picked) {
      std::cerr << "rmq-node: " << describe(picked.error()) << std::endl;
      return std::nullopt;
    }
    port = *picked;
  } else if (flag > 0) {
    port = static_cast<uint16_t>(flag);
  }
  if (auto err = check_port_free(host, port)) {
    std::cerr << "rmq-node: " << describe(err) << std::endl;
    return std::nullopt;
  }
  return port;
}

} // namespace

namespace {

// Waits out the watchdog's SIGUSR1 for a supervisor that was stopped on
// purpose (a role change): the next node's wait must not take it for a
// failure.
void drain_watchdog_signal() {
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  timespec zero{0, 0};
  while (sigtimedwait(&usr1, nullptr, &zero) == SIGUSR1) {
    // drained
  }
}

// The role kept by an earlier promote / demote wins over the flags;
// `new_term`: a promotion whose first start as master is this one.
bool apply_kept_role(const options& cfg, int64_t& broker_id,
                     std::string& broker_role, bool& new_term) {
  auto kept = load_role_override(cfg.store_dir);
  if (!kept) {
    std::cerr << "rmq-node: " << describe(kept.error()) << std::endl;
    return false;
  }
  new_term = *kept && (*kept)->new_term && (*kept)->broker_id == 0;
  if (*kept
      && ((*kept)->broker_id != broker_id || (*kept)->role != broker_role)) {
    RMQ_WARN("broker", "starting as broker id "
                         << (*kept)->broker_id << ", " << (*kept)->role
                         << ", as a promote / demote left it in "
                         << role_file_path(cfg.store_dir)
                         << " (the flags say id " << cfg.broker_id << ")");
    broker_id = (*kept)->broker_id;
    broker_role = (*kept)->role;
  }
  return true;
}

} // namespace

int run_broker(caf::actor_system& sys, const options& cfg,
               const sigset_t& signals) {
  int64_t broker_id = cfg.broker_id;
  std::string broker_role = cfg.broker_role;
  // A start after a promotion begins the new master's term.
  bool new_term = false;
  // Both ports are known before the broker starts: it registers them, and
  // keeps them across role changes.
  auto port = listen_port(cfg.host, cfg.port, broker_caf_port);
  auto remoting_port = listen_port(cfg.host, cfg.remoting_port,
                                   broker_remoting_port);
  // Two free ports picked one after the other may be one port.
  while (port && remoting_port && *port == *remoting_port)
    remoting_port = listen_port(cfg.host, 0, 0);
  if (!port || !remoting_port)
    return 1;
  for (;;) {
    if (!apply_kept_role(cfg, broker_id, broker_role, new_term))
      return 1;
    auto opts = to_broker_options(cfg, broker_id, broker_role);
    if (!opts) {
      std::cerr << "rmq-node: " << describe(opts.error()) << std::endl;
      return 2;
    }
    opts->port = *port;
    opts->remoting_port = *remoting_port;
    // Tests and scripts wait for "registered with ADDR" lines.
    opts->on_registrar_event = [](const std::string& line) {
      print_line(line);
    };
    opts->register_when_opened = true;
    opts->new_term = new_term;
    // promote / demote: kept first, then the main thread restarts the
    // node in its new role (docs/replication.md, "Failover").
    opts->on_role_change
      = [store = cfg.store_dir](const role_change_request& req) -> caf::error {
      if (auto err = save_role_override(store, {req.broker_id, req.role,
                                                req.broker_id == 0}))
        return err;
      kill(getpid(), SIGUSR2);
      return caf::none;
    };
    auto started = spawn_broker(sys, *opts);
    if (!started) {
      std::cerr << "rmq-node: cannot start the broker: "
                << describe(started.error()) << std::endl;
      return 1;
    }
    auto& node = *started;
    // The term is in the store now: the mark goes.
    if (new_term)
      if (auto err = save_role_override(cfg.store_dir,
                                        {broker_id, broker_role, false}))
        RMQ_WARN("broker", "clearing the new-term mark of " << role_file_path(
                             cfg.store_dir) << ": " << describe(err));
    auto published = publish(sys, node.frontend, *port, cfg.host);
    if (!published) {
      std::cerr << "rmq-node: cannot listen on " << cfg.host << ":" << *port
                << ": " << sys.render(published.error()) << std::endl;
      node.stop(sys);
      return 1;
    }
    // Tests and scripts read this line to learn the port; the
    // registrations ("registered with ...") follow it.
    print_line("broker " + cfg.broker_name + " listening on " + cfg.host + ":"
               + std::to_string(*port));
    auto remoting
      = serve_remoting(sys, cfg, "broker", *remoting_port,
                       broker_remoting(node.frontend, broker_properties(*opts)),
                       node.supervisor);
    if (!remoting) {
      sys.middleman().unpublish(node.frontend, *port);
      node.stop(sys);
      return 1;
    }
    node.open();
    RMQ_INFO("broker", cfg.broker_name
                         << " (" << cfg.cluster_name << ", id " << broker_id
                         << ") listening on " << cfg.host << ":" << *port
                         << (cfg.tls() ? " (mutual TLS)" : "") << ", store "
                         << cfg.store_dir << ", " << cfg.flush_disk_type
                         << ", NameServers '" << cfg.namesrv << "'");
    // rmq-bench broker measures its baseline against this actor, reached
    // over the same connection as the front; it costs one idle actor.
    auto echo = spawn_bench_echo(sys);
    int sig = 0;
    std::string failure;
    {
      stop_watch watch{sys, node.supervisor};
      sig = watch.wait(signals, "broker");
      failure = watch.failure();
      stop_bench_echo(sys, echo);
      // Unpublish first: no new requests while the node unregisters,
      // persists and closes the store.
      sys.middleman().unpublish(node.frontend, *port);
      caf::anon_send_exit(*remoting, caf::exit_reason::user_shutdown);
      node.stop(sys);
    }
    if (sig == SIGUSR1) {
      RMQ_ERROR("broker", "node failed (" << failure << "): exiting");
      return 1;
    }
    if (sig == SIGUSR2) {
      drain_watchdog_signal();
      // The remoting port's acceptor closes on its own thread.
      std::this_thread::sleep_for(std::chrono::milliseconds{200});
      RMQ_WARN("broker", cfg.broker_name << " restarts in its new role");
      continue;
    }
    RMQ_INFO("broker", cfg.broker_name << " stopped");
    return 0;
  }
}

} // namespace rmq::node
