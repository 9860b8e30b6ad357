// rmq-node --role=broker under its supervisor, from outside: an actor with
// state killed through the network (the front, or the send processor whose
// handle crosses the network with every send it answers) makes the process
// exit 1 with a log line naming the actor, so that a process supervisor
// restarts it; restarted at once on its port, it serves with its data.
#include <chrono>
#include <string>

#include <doctest/doctest.h>

#include "caf/actor_cast.hpp"
#include "caf/exit_reason.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "tests/system/broker_system_support.hpp"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

const std::string topic = "TopicSupervised";

// Reads the node's output until the supervisor names `actor` as dead.
bool logs_death_of(broker_process& broker, const std::string& actor) {
  std::string line;
  while (broker.proc->read_line(line, 10s))
    if (line.find("actor " + actor + " exited") != std::string::npos)
      return true;
  return false;
}

// Restarted on the same port at once, the broker has every message it
// acknowledged and takes new ones.
void check_restarts(broker_process& broker, const broker_launch& how,
                    std::vector<std::string>& bodies) {
  restart_broker_node(broker, how);
  remote_client client;
  auto front = connect_broker(client, broker.port);
  auto sent = send_plain(client, front, topic, "after restart", 0);
  REQUIRE_MESSAGE(sent, describe(sent.error()));
  bodies.push_back("after restart");
  REQUIRE(wait_readable(client, front, topic, 0,
                        static_cast<int64_t>(bodies.size())));
  CHECK_EQ(pull_all(client, front, topic, 0), bodies);
}

} // namespace

TEST_SUITE("system.broker.supervision") {
  TEST_CASE("a broker whose stateful actors are killed remotely exits 1 and "
            "restarts at once on its port") {
    temp_dir dir;
    broker_launch how;
    how.store_dir = dir.path() + "/store";
    how.log_to_stdout = true;
    auto broker = start_broker_node(how);
    std::vector<std::string> bodies;
    {
      remote_client client;
      auto front = connect_broker(client, broker.port);
      create_topic(client, front, topic, 1);
      // The front delegates sends: the send processor answers the client
      // itself, so its handle is the reply's sender.
      send_message_request req;
      req.producer_group = "P";
      req.topic = topic;
      req.queue_id = 0;
      req.body = "before";
      caf::strong_actor_ptr processor;
      client.self->request(front, 5s, req)
        .receive(
          [&](send_result&) {
            processor = client.self->current_sender();
            bodies.push_back("before");
          },
          [&](caf::error& err) { FAIL(describe(err)); });
      REQUIRE(processor);
      REQUIRE(processor != caf::actor_cast<caf::strong_actor_ptr>(front));
      caf::anon_send_exit(processor, caf::exit_reason::kill);
    }
    CHECK(logs_death_of(broker, "send_processor"));
    CHECK_EQ(broker.proc->wait(), 1);
    check_restarts(broker, how, bodies);

    // The front itself: CAF 0.17 cannot refuse an exit message, and a node
    // without its front would accept connections and answer nothing.
    {
      remote_client client;
      auto front = connect_broker(client, broker.port);
      caf::anon_send_exit(front, caf::exit_reason::kill);
    }
    CHECK(logs_death_of(broker, "broker_frontend"));
    CHECK_EQ(broker.proc->wait(), 1);
    check_restarts(broker, how, bodies);
  }

} // TEST_SUITE
