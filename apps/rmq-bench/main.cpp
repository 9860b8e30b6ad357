// rmq-bench <subcommand> [flags]: benchmarks that print figures for
// docs/benchmarks.md. Run without arguments for the list.
#include <cstring>
#include <iostream>

#include "apps/rmq-bench/benches.hpp"

int main(int argc, char** argv) {
  struct entry {
    const char* name;
    int (*run)(int, char**);
    const char* what;
  };
  const entry entries[] = {
    {"namesrv", rmq::bench::namesrv,
     "NameServer route queries and registration"},
    {"broker", rmq::bench::broker,
     "broker sends, pulls and long polling vs a CAF baseline"},
    {"produce", rmq::bench::produce,
     "producer sends through the producer API vs a CAF baseline"},
    {"consume", rmq::bench::consume,
     "push consumer throughput from a pre-filled topic vs a CAF baseline"},
    {"consume-memory", rmq::bench::consume_memory,
     "a blocked push consumer's memory vs its flow-control bound"},
    {"e2e", rmq::bench::e2e,
     "produce -> consume latency at a light rate and at full speed"},
    {"store", rmq::bench::store, "message store appends and recovery"},
    {"store-writer", rmq::bench::store_writer,
     "crash-test writer (prints ACKs)"},
    {"schedule-writer", rmq::bench::schedule_writer,
     "schedule-service crash-test process"},
    {"remoting", rmq::bench::remoting,
     "broker sends through the remoting port vs the CAF port"},
    {"timer", rmq::bench::timer,
     "timed sends, firing lateness and memory with pending timers"},
  };
  if (argc >= 2)
    for (auto& e : entries)
      if (std::strcmp(argv[1], e.name) == 0)
        return e.run(argc - 1, argv + 1);
  std::cerr << "usage: rmq-bench <subcommand> [--help]\n";
  for (auto& e : entries)
    std::cerr << "  " << e.name << "\t" << e.what << '\n';
  return 2;
}
