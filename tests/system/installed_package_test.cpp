// A program outside the tree uses the installed library: `cmake --install`
// into a temporary prefix, then tests/outside_project (its own
// CMakeLists.txt: find_package(rmq CONFIG REQUIRED), rmq::client, only
// <rmq/...> headers) is configured, built and run against a real NameServer
// and broker; it sends messages and consumes every one of them.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/system/broker_system_support.hpp"
#include "tests/system/namesrv_system_support.hpp"

using namespace std::chrono_literals;
using namespace rmq;
using namespace rmq::test;

namespace {

// Runs `cmd` through the shell with its stderr joined to stdout; REQUIREs
// exit code 0 and shows the output otherwise.
void run_ok(const std::string& cmd, std::chrono::milliseconds timeout) {
  std::string out;
  auto rc = run_command({"/bin/sh", "-c", cmd + " 2>&1"}, out, timeout);
  REQUIRE_MESSAGE(rc == 0, cmd << "\nexit " << rc << ":\n" << out);
}

std::string shell_quoted(const std::string& s) {
  return "'" + s + "'";
}

} // namespace

TEST_SUITE("system.installed_package") {
  TEST_CASE("an outside project finds the installed package, links "
            "rmq::client and sends and consumes through a running cluster") {
    temp_dir dir;
    auto prefix = dir.path() + "/prefix";
    auto build = dir.path() + "/build";
    auto cmake = cmake_command();
    run_ok(shell_quoted(cmake) + " --install " + shell_quoted(bin_dir())
             + " --prefix " + shell_quoted(prefix),
           120s);
    for (auto* installed :
         {"/bin/rmq-node", "/bin/rmq-admin", "/bin/rmq-bench",
          "/include/rmq/client.hpp", "/lib/cmake/rmq/rmqConfig.cmake"})
      CHECK_MESSAGE(std::filesystem::exists(prefix + installed), installed);
    run_ok(shell_quoted(cmake) + " -S "
             + shell_quoted(source_dir() + "/tests/outside_project") + " -B "
             + shell_quoted(build) + " -DCMAKE_BUILD_TYPE=Release"
             + " -DCMAKE_PREFIX_PATH=" + shell_quoted(prefix),
           120s);
    run_ok(shell_quoted(cmake) + " --build " + shell_quoted(build), 600s);
    auto ns = start_namesrv();
    auto broker = start_broker_node(one_broker(ns, dir.path() + "/store"));
    std::string out;
    auto rc = run_command({"/bin/sh", "-c",
                           "exec " + shell_quoted(build + "/outside_client")
                             + " --namesrv=" + ns.addr()
                             + " --topic=OutsideTopic --count=20 2>&1"},
                          out, 120s);
    CHECK_MESSAGE(rc == 0, out);
    CHECK_NE(out.find("received 20 of 20"), std::string::npos);
  }
}
