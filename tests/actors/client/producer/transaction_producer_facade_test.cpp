// The transaction producer's blocking facade in a threaded actor system,
// with its workers detached, against a fake broker
// (tests/support/fake_broker.hpp) and a fake client instance
// (tests/actors/client/fake_client_instance.hpp).
#include "actors/client/producer/transaction_producer.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "caf/actor_system.hpp"
#include "caf/exit_reason.hpp"
#include "caf/send.hpp"

#include "actors/client/instance/latency_fault_service.hpp"
#include "messages/common/errors.hpp"
#include "runtime/process/node_config.hpp"
#include "tests/actors/client/fake_client_instance.hpp"
#include "tests/actors/client/producer/scripted_transaction.hpp"
#include "tests/support/fake_broker.hpp"
#include "tests/support/wait_until.hpp"

using namespace rmq;
using namespace std::chrono_literals;

namespace {

struct fixture : test::instance_books {
  node_config cfg;
  caf::actor_system sys{cfg};
  std::shared_ptr<test::fake_broker> broker
    = std::make_shared<test::fake_broker>();
  std::shared_ptr<test::scripted_listener> listener
    = std::make_shared<test::scripted_listener>();
  std::vector<caf::actor> spawned;
  client_instance inst;
  transaction_producer_config tcfg;

  fixture() {
    tcfg.producer.group = "PG";
    auto b = sys.spawn(test::play_broker, broker);
    dir->brokers["a:10911"] = b;
    routes->routes["TopicA"] = test::route_over({"broker-a"}, 2);
    inst.client_id = "10.0.0.9@facade";
    spawned.push_back(caf::actor_cast<caf::actor>(b));
    spawn_instance(inst, test::spawn_into(sys, spawned));
  }

  ~fixture() {
    for (auto& hdl : spawned)
      caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
  }

  static client_message msg(std::string body) {
    client_message m;
    m.topic = "TopicA";
    m.body = std::move(body);
    return m;
  }
};

} // namespace

TEST_SUITE("client.transaction_producer_facade") {
  TEST_CASE_FIXTURE(fixture, "the facade runs transactions on detached "
                             "workers and ends them at the broker") {
    auto p = spawn_transaction_producer(sys, tcfg, listener, inst);
    REQUIRE(p);
    auto res = p->send_in_transaction(msg("commit"), "42");
    REQUIRE(res);
    CHECK_EQ(res->local_state, uint8_t(transaction_state::commit));
    auto thrown = p->send_in_transaction(msg("throw"));
    REQUIRE(thrown);
    CHECK_EQ(thrown->local_state, uint8_t(transaction_state::unknown));
    CHECK_EQ(thrown->local_error, "listener failure");
    REQUIRE(test::wait_until([&] { return broker->end_count == 2; }, 10s));
    CHECK_EQ(broker->ends[0].state, uint8_t(transaction_state::commit));
    CHECK_EQ(broker->ends[0].msg_id, res->send.msg_id);
    CHECK_EQ(broker->ends[1].state, uint8_t(transaction_state::unknown));
    {
      std::lock_guard<std::mutex> guard{listener->mtx};
      REQUIRE_EQ(listener->executed.size(), 2u);
      CHECK_EQ(listener->executed[0].arg, "42");
    }
    p->shutdown();
    // After shutdown the facade refuses.
    auto late = p->send_in_transaction(msg("commit"));
    CHECK_FALSE(late);
  }

  TEST_CASE_FIXTURE(fixture, "the facade needs a listener") {
    auto p = spawn_transaction_producer(sys, tcfg, nullptr, inst);
    REQUIRE_FALSE(p);
    CHECK_EQ(p.error(), make_error(errc::invalid_parameter));
  }
}
