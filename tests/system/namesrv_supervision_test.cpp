// rmq-node under its supervisor, from outside: an actor with state killed
// through the network makes the process exit non-zero with a log line
// naming the actor, so that a process supervisor restarts it.
#include <chrono>
#include <string>

#include <doctest/doctest.h>

#include "caf/actor_cast.hpp"
#include "caf/exit_reason.hpp"
#include "caf/send.hpp"

#include "messages/common/errors.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace std::chrono_literals;
using namespace rmq::test;

TEST_SUITE("system.namesrv.supervision") {
  TEST_CASE("a node whose liveness table is killed remotely exits non-zero "
            "and says which actor died") {
    // stderr into the pipe, so the test can read the log.
    rmq::child_process node{{"/bin/sh", "-c",
                             "exec \"$0\" --role=namesrv --port=0 "
                             "--remoting-port=0 "
                             "--kv-config-path= --log-level=warn 2>&1",
                             bin_dir() + "/rmq-node"}};
    std::string rest;
    REQUIRE(node.wait_for("namesrv listening on 127.0.0.1:", rest));
    auto port = static_cast<uint16_t>(std::stoi(rest));
    {
      remote_client client;
      auto hdl = client.connect(port);
      REQUIRE(hdl);
      // The front actor delegates heartbeats to the liveness table, which
      // then answers the client itself: its handle crosses the network (and
      // with it the power to send it an exit message).
      caf::strong_actor_ptr table;
      client.self
        ->request(hdl, 5s,
                  rmq::broker_heartbeat_request{"DefaultCluster",
                                                "127.0.0.1:10999", "ghost", 0})
        .receive([](caf::ok_atom) { FAIL("a ghost broker was known"); },
                 [&](const caf::error& err) {
                   CHECK(err == rmq::errc::broker_not_found);
                   table = client.self->current_sender();
                 });
      REQUIRE(table);
      REQUIRE(table != caf::actor_cast<caf::strong_actor_ptr>(hdl));
      caf::anon_send_exit(table, caf::exit_reason::kill);
    }
    bool named = false;
    std::string line;
    while (!named && node.read_line(line, 10s))
      named = line.find("actor broker_live_table exited") != std::string::npos;
    CHECK_MESSAGE(named, "last line: " << line);
    CHECK_EQ(node.wait(10s), 1);
  }

} // TEST_SUITE
