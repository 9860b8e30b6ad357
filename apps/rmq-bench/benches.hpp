// rmq-bench's subcommands; each lives in its own file and parses its own flags.
#pragma once

namespace rmq::bench {

/// `rmq-bench namesrv ...`: route query throughput, register latency.
int namesrv(int argc, char** argv);

/// `rmq-bench broker ...`: sends, pulls and long polling against a broker
/// process, each figure next to a same-run CAF baseline.
int broker(int argc, char** argv);

/// `rmq-bench broker --ha ...`: sends with no slave, an ASYNC_MASTER's and
/// a SYNC_MASTER's slave, the slave's lag and its catch-up speed, against
/// real master and slave processes.
int broker_ha(int argc, char** argv);

/// `rmq-bench produce ...`: producer sends (sync, async, auto-batched,
/// batches) through the producer API vs a same-run CAF baseline.
int produce(int argc, char** argv);

/// `rmq-bench consume ...`: push consumer throughput from a pre-filled
/// topic vs a same-run CAF baseline.
int consume(int argc, char** argv);

/// `rmq-bench consume-memory ...`: a blocked push consumer's memory
/// against the flow-control bound.
int consume_memory(int argc, char** argv);

/// `rmq-bench e2e ...`: produce -> consume latency at a light rate and at
/// full speed.
int e2e(int argc, char** argv);

/// `rmq-bench store ...`: commit log append throughput, recovery time.
int store(int argc, char** argv);

/// `rmq-bench store-writer ...`: appends forever, one line per ack (crash test).
int store_writer(int argc, char** argv);

/// `rmq-bench schedule-writer ...`: schedules and delivers delayed messages
/// (the schedule service's crash test).
int schedule_writer(int argc, char** argv);

/// `rmq-bench timer ...`: timed-send throughput vs plain sends, firing
/// lateness and broker memory with many pending timers.
int timer(int argc, char** argv);

/// `rmq-bench remoting ...`: a broker's sends through its remoting port
/// vs its CAF port in the same run.
int remoting(int argc, char** argv);

} // namespace rmq::bench
