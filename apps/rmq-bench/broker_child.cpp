#include "apps/rmq-bench/broker_child.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "caf/actor_cast.hpp"
#include "caf/io/middleman.hpp"
#include "caf/scoped_actor.hpp"

#include "actors/common/bench_echo.hpp"
#include "messages/common/errors.hpp"
#include "runtime/net/connect.hpp"
#include "runtime/net/host_port.hpp"

namespace rmq::bench {

broker_child::~broker_child() {
  if (proc && proc->running()) {
    proc->signal(SIGTERM);
    proc->wait(std::chrono::seconds{30});
  }
  if (!dir.empty()) {
    std::string out;
    run_command({"/bin/rm", "-rf", dir}, out);
  }
}

std::unique_ptr<broker_child>
start_broker(const std::string& name, const std::string& flush,
             const std::string& parent, const std::string& namesrv,
             const std::vector<std::string>& extra_args) {
  auto result = std::make_unique<broker_child>();
  result->name = name;
  char tmpl[4096];
  std::snprintf(tmpl, sizeof(tmpl), "%s/rmq-bench-broker-XXXXXX",
                parent.c_str());
  if (mkdtemp(tmpl) == nullptr) {
    std::cerr << "cannot create a store dir under " << parent << '\n';
    return nullptr;
  }
  result->dir = tmpl;
  std::vector<std::string> argv{
    exe_dir() + "/rmq-node", "--role=broker", "--name=" + name,
    "--namesrv=" + namesrv, "--port=0", "--remoting-port=0",
    "--store-dir=" + result->dir, "--flush-disk-type=" + flush,
    // 100 topics x 100 queues of RocketMQ's
    // 5.7 MB consume-queue files would
    // allocate 57 GB; 20,000 units (400 KB)
    // take 4 GB and hold every test's data.
    "--mapped-file-size-consume-queue=400000", "--log-level=warn"};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  result->proc = std::make_unique<child_process>(std::move(argv));
  std::string rest;
  if (!result->proc->wait_for("broker " + name + " listening on ", rest,
                              std::chrono::seconds{60})) {
    std::cerr << "rmq-node --role=broker did not start\n";
    return nullptr;
  }
  result->address = rest;
  return result;
}

bool create_topic(caf::scoped_actor& self, const broker_actor& broker,
                  const std::string& name, int32_t queues) {
  update_topic_request req;
  req.config.topic_name = name;
  req.config.read_queue_nums = queues;
  req.config.write_queue_nums = queues;
  bool ok = false;
  self->request(broker, std::chrono::seconds{30}, req)
    .receive([&](const data_version&) { ok = true; },
             [&](const caf::error& err) {
               std::cerr << "updateTopic " << name
                         << " failed: " << describe(err) << '\n';
             });
  return ok;
}

std::optional<broker_connection> connect_broker(caf::actor_system& sys,
                                                const std::string& address) {
  auto addr = parse_host_port(address);
  if (!addr) {
    std::cerr << "bad broker address '" << address << "'\n";
    return std::nullopt;
  }
  caf::scoped_actor self{sys};
  auto broker = connect<broker_actor>(self, *addr, std::chrono::seconds{10});
  if (!broker) {
    std::cerr << "cannot connect to " << address << ": "
              << describe(broker.error()) << '\n';
    return std::nullopt;
  }
  auto echo = caf::actor_cast<caf::actor>(
    sys.middleman().remote_lookup(bench_echo_name, broker->node()));
  if (!echo) {
    std::cerr << "the broker at " << address
              << " has no bench echo actor (an older rmq-node?)\n";
    return std::nullopt;
  }
  return broker_connection{*broker, echo};
}

} // namespace rmq::bench
