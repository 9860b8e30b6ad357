// The topic config table on the deterministic coordinator: system topics at
// start, UPDATE_AND_CREATE / DELETE with their checks, data versions that
// survive a restart, TBW102 auto-creation, retry/DLQ topics, a corrupt or
// unreadable file, watchers and the dump.
#include "actors/broker/table/topic_config_table.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/event_based_actor.hpp"

#include "messages/common/errors.hpp"
#include "tests/support/deterministic_fixture.hpp"
#include "tests/support/temp_dir.hpp"

using namespace rmq;

namespace {

using recorded_sets = std::shared_ptr<std::vector<topic_config_set>>;

// Stores every change a table announces.
caf::behavior recorder(caf::event_based_actor*, recorded_sets sets) {
  return {
    [sets](caf::put_atom, const topic_config_set& x) { sets->push_back(x); },
  };
}

struct fixture : test::deterministic_fixture {
  test::temp_dir dir{"rmq-topics"};
  std::shared_ptr<int64_t> now = std::make_shared<int64_t>(1000);
  topic_config_table_options opts;
  topic_config_table_actor table;

  fixture() {
    opts.config_path = topics_json_path(dir.path());
    opts.broker_name = "broker-a";
    opts.cluster_name = "DefaultCluster";
    // Each data version gets a new, predictable timestamp.
    opts.wall_clock = [t = now] { return (*t)++; };
  }

  void start() {
    stop();
    table = spawn(topic_config_table, opts);
  }

  void stop() {
    if (table) {
      caf::anon_send_exit(table, caf::exit_reason::user_shutdown);
      sched.run();
      table = nullptr;
    }
  }

  topic_config get(const std::string& topic) {
    return ask<topic_config>(table, caf::get_atom::value, topic);
  }

  topic_config_set all() {
    return ask<topic_config_set>(table, caf::get_atom::value);
  }

  bool has(const std::string& topic) {
    for (auto& cfg : all().topics)
      if (cfg.topic_name == topic)
        return true;
    return false;
  }

  data_version put(const topic_config& cfg) {
    return ask<data_version>(table, caf::put_atom::value, cfg);
  }

  caf::error put_error(const topic_config& cfg) {
    return ask_error<data_version>(table, caf::put_atom::value, cfg);
  }

  data_version erase(const std::string& topic) {
    return ask<data_version>(table, caf::delete_atom::value, topic);
  }

  caf::error erase_error(const std::string& topic) {
    return ask_error<data_version>(table, caf::delete_atom::value, topic);
  }

  topic_config for_send(const std::string& topic, int32_t queues = 4) {
    topic_for_send_request req;
    req.topic = topic;
    req.default_queue_nums = queues;
    return ask<topic_config>(table, req);
  }

  caf::error for_send_error(topic_for_send_request req) {
    return ask_error<topic_config>(table, std::move(req));
  }

  nlohmann::json dump() {
    return nlohmann::json::parse(ask<std::string>(table, dump_atom::value));
  }

  static topic_config make(std::string name, int32_t queues = 8,
                           int32_t perm_bits = perm::read_write) {
    topic_config cfg;
    cfg.topic_name = std::move(name);
    cfg.read_queue_nums = queues;
    cfg.write_queue_nums = queues;
    cfg.perm = perm_bits;
    return cfg;
  }

  nlohmann::json file() {
    return nlohmann::json::parse(test::read_file(opts.config_path));
  }

  data_version file_version() {
    auto v = file()["dataVersion"];
    return {v["stateVersion"].get<int64_t>(), v["timestamp"].get<int64_t>(),
            v["counter"].get<int64_t>()};
  }
};

bool same(const data_version& x, const data_version& y) {
  return x.state_version == y.state_version && x.timestamp == y.timestamp
         && x.counter == y.counter;
}

} // namespace

TEST_CASE_FIXTURE(fixture, "the table starts with RocketMQ's system topics") {
  start();
  auto tbw = get("TBW102");
  CHECK_EQ(tbw.read_queue_nums, 8);
  CHECK_EQ(tbw.write_queue_nums, 8);
  CHECK_EQ(tbw.perm, perm::inherit | perm::read_write);
  CHECK_EQ(get("SELF_TEST_TOPIC").write_queue_nums, 1);
  CHECK_EQ(get("BenchmarkTest").write_queue_nums, 1024);
  CHECK_EQ(get("OFFSET_MOVED_EVENT").write_queue_nums, 1);
  CHECK_EQ(get("SCHEDULE_TOPIC_XXXX").read_queue_nums, 18);
  CHECK_EQ(get("SCHEDULE_TOPIC_XXXX").write_queue_nums, 18);
  CHECK_EQ(get("RMQ_SYS_TRANS_HALF_TOPIC").write_queue_nums, 1);
  CHECK_EQ(get("RMQ_SYS_TRANS_OP_HALF_TOPIC").write_queue_nums, 1);
  CHECK_EQ(get("TRANS_CHECK_MAX_TIME_TOPIC").write_queue_nums, 1);
  CHECK_EQ(get("DefaultCluster_REPLY_TOPIC").write_queue_nums, 1);
  CHECK_EQ(get("rmq_sys_REVIVE_LOG_DefaultCluster").write_queue_nums, 8);
  CHECK_EQ(get("rmq_sys_SYNC_BROKER_MEMBER_broker-a").perm, perm::inherit);
  CHECK_EQ(get("rmq_sys_wheel_timer").write_queue_nums, 1);
  auto cluster = get("DefaultCluster");
  CHECK_EQ(cluster.perm, perm::inherit | perm::read_write);
  CHECK_EQ(cluster.write_queue_nums, 16);
  auto broker = get("broker-a");
  CHECK_EQ(broker.perm, perm::inherit | perm::read_write);
  CHECK_EQ(broker.write_queue_nums, 1);
  CHECK_FALSE(has("RMQ_SYS_TRACE_TOPIC")); // traceTopicEnable is off
  // Nothing changed, so nothing was written and the counter is 0.
  CHECK_EQ(all().version.counter, 0);
  CHECK_FALSE(std::filesystem::exists(opts.config_path));
}

TEST_CASE_FIXTURE(fixture, "options switch system topics and their perms") {
  opts.auto_create_topic_enable = false;
  opts.cluster_topic_enable = false;
  opts.broker_topic_enable = false;
  opts.trace_topic_enable = true;
  opts.default_topic_queue_nums = 4;
  start();
  CHECK_FALSE(has("TBW102"));
  CHECK_EQ(get("DefaultCluster").perm, perm::inherit);
  CHECK_EQ(get("broker-a").perm, perm::inherit);
  CHECK_EQ(get("RMQ_SYS_TRACE_TOPIC").write_queue_nums, 1);
  auto err = ask_error<topic_config>(table, caf::get_atom::value,
                                     std::string{"TBW102"});
  CHECK_EQ(err, errc::topic_not_exist);
}

TEST_CASE_FIXTURE(fixture, "changes bump the version, persist and survive "
                           "a restart") {
  start();
  auto v0 = all().version;
  auto v1 = put(make("TopicA", 8));
  CHECK_EQ(v1.counter, v0.counter + 1);
  CHECK_GT(v1.timestamp, v0.timestamp);
  CHECK(same(all().version, v1));
  CHECK(same(file_version(), v1));
  auto stored = file()["topicConfigTable"]["TopicA"];
  CHECK_EQ(stored["readQueueNums"], 8);
  CHECK_EQ(stored["perm"], 6);
  CHECK_EQ(stored["topicFilterType"], "SINGLE_TAG");
  // An update with other queues and perm.
  auto cfg = make("TopicA", 4, perm::read);
  cfg.order = true;
  auto v2 = put(cfg);
  CHECK_EQ(v2.counter, v1.counter + 1);
  CHECK_EQ(get("TopicA"), cfg);
  // The same config again is idempotent: no new version.
  CHECK(same(put(cfg), v2));
  put(make("TopicB", 2));
  auto v4 = erase("TopicB");
  CHECK_EQ(v4.counter, v2.counter + 2);
  CHECK_FALSE(has("TopicB"));
  // Deleting an unknown topic succeeds without a new version.
  CHECK(same(erase("TopicB"), v4));
  // Restart on the same folder: same topics, same version.
  auto before = all();
  start();
  auto after = all();
  CHECK(same(after.version, v4));
  CHECK_EQ(after.topics, before.topics);
  CHECK_EQ(get("TopicA"), cfg);
  // The counter goes on from the stored version.
  CHECK_EQ(put(make("TopicC")).counter, v4.counter + 1);
}

TEST_CASE_FIXTURE(fixture, "a stored topic wins over its default at start") {
  start();
  // A system topic cannot be put, so change the stored file directly:
  // RocketMQ loads the file over the defaults.
  put(make("TopicA"));
  stop();
  auto doc = file();
  doc["topicConfigTable"]["TBW102"]["writeQueueNums"] = 2;
  test::write_file(opts.config_path, doc.dump());
  start();
  CHECK_EQ(get("TBW102").write_queue_nums, 2);
  CHECK_EQ(for_send("NewTopic", 4).write_queue_nums, 2);
}

TEST_CASE_FIXTURE(fixture, "put and delete refuse what RocketMQ refuses") {
  start();
  auto refused = [&](const topic_config& cfg, const std::string& text) {
    auto err = put_error(cfg);
    CHECK_EQ(err, errc::invalid_parameter);
    CHECK_MESSAGE(error_detail(err).find(text) != std::string::npos,
                  error_detail(err));
  };
  refused(make(""), "empty");
  refused(make("bad topic"), "illegal characters");
  refused(make("a.b"), "illegal characters");
  refused(make(std::string(128, 'a')), "longer than 127");
  refused(make("TopicA", 0), "readQueueNums 0");
  refused(make("TopicA", 1025), "readQueueNums 1025");
  auto uneven = make("TopicA", 8);
  uneven.write_queue_nums = -1;
  refused(uneven, "writeQueueNums -1");
  refused(make("TopicA", 8, 8), "perm 8");
  refused(make("TopicA", 8, -1), "perm -1");
  auto filter = make("TopicA");
  filter.topic_filter_type = 2;
  refused(filter, "topicFilterType 2");
  for (auto name : {"TBW102", "SCHEDULE_TOPIC_XXXX", "broker-a",
                    "DefaultCluster", "rmq_sys_anything", "CHECKPOINT_TOPIC"})
    refused(make(name), "conflict with system topic");
  CHECK_EQ(all().version.counter, 0);
  CHECK_FALSE(has("TopicA"));
  // Retry and DLQ topics may be longer (RocketMQ allows 255).
  auto long_retry = "%RETRY%" + std::string(200, 'g');
  CHECK_EQ(put(make(long_retry, 1)).counter, 1);
  refused(make("%RETRY%" + std::string(249, 'g')), "longer than");
  refused(make("%DLQ%" + std::string(150, 'g') + "."), "illegal characters");
  // Delete.
  auto err = erase_error("");
  CHECK_EQ(err, errc::invalid_parameter);
  err = erase_error("TBW102");
  CHECK_EQ(err, errc::invalid_parameter);
  CHECK(has("TBW102"));
  err = erase_error("SELF_TEST_TOPIC");
  CHECK_EQ(err, errc::invalid_parameter);
}

TEST_CASE_FIXTURE(fixture, "sends create topics through TBW102") {
  start();
  auto cfg = for_send("NewTopic", 4);
  CHECK_EQ(cfg.topic_name, "NewTopic");
  CHECK_EQ(cfg.read_queue_nums, 4);
  CHECK_EQ(cfg.write_queue_nums, 4);
  CHECK_EQ(cfg.perm, perm::read_write); // INHERIT dropped
  CHECK_EQ(get("NewTopic"), cfg);
  CHECK_EQ(all().version.counter, 1);
  CHECK(file()["topicConfigTable"].contains("NewTopic"));
  // The client asks for more queues than TBW102 has: TBW102's 8.
  CHECK_EQ(for_send("Wide", 16).write_queue_nums, 8);
  // An existing topic is answered as it is, without a new version.
  put(make("Existing", 3, perm::read));
  auto v = all().version;
  CHECK_EQ(for_send("Existing").write_queue_nums, 3);
  CHECK(same(all().version, v));
  // The sys flag travels, the filter type comes from the default topic.
  topic_for_send_request req;
  req.topic = "Unit";
  req.topic_sys_flag = 1;
  CHECK_EQ(ask<topic_config>(table, req).topic_sys_flag, 1);
}

TEST_CASE_FIXTURE(fixture, "sends to unknown topics fail without TBW102") {
  SUBCASE("auto-create off") {
    opts.auto_create_topic_enable = false;
    start();
    topic_for_send_request req;
    req.topic = "NewTopic";
    auto err = for_send_error(req);
    CHECK_EQ(err, errc::topic_not_exist);
    CHECK_FALSE(has("NewTopic"));
  }
  SUBCASE("auto-create off with TBW102 left in the file") {
    start();
    put(make("TopicA"));
    opts.auto_create_topic_enable = false;
    start();
    CHECK(has("TBW102")); // loaded, but no longer inheritable
    topic_for_send_request req;
    req.topic = "NewTopic";
    CHECK_EQ(for_send_error(req), errc::topic_not_exist);
  }
  SUBCASE("a default topic that is missing or not inheritable") {
    start();
    put(make("Plain", 8, perm::read_write));
    topic_for_send_request req;
    req.topic = "NewTopic";
    req.default_topic = "Missing";
    CHECK_EQ(for_send_error(req), errc::topic_not_exist);
    req.default_topic = "Plain";
    auto err = for_send_error(req);
    CHECK_EQ(err, errc::topic_not_exist);
    CHECK_NE(error_detail(err).find("inherit"), std::string::npos);
    CHECK_FALSE(has("NewTopic"));
  }
  SUBCASE("invalid names and forbidden topics") {
    start();
    topic_for_send_request req;
    req.topic = "bad topic";
    CHECK_EQ(for_send_error(req), errc::invalid_parameter);
    req.topic = std::string(128, 'x');
    CHECK_EQ(for_send_error(req), errc::invalid_parameter);
    req.topic = "SCHEDULE_TOPIC_XXXX";
    CHECK_EQ(for_send_error(req), errc::no_permission);
    req.topic = "RMQ_SYS_TRANS_HALF_TOPIC";
    CHECK_EQ(for_send_error(req), errc::no_permission);
    req.topic = "NoQueues";
    req.default_queue_nums = 0;
    CHECK_EQ(for_send_error(req), errc::invalid_parameter);
    CHECK_EQ(all().version.counter, 0);
  }
}

TEST_CASE_FIXTURE(fixture, "retry and DLQ topics of a group") {
  start();
  group_topic_request req;
  req.group = "GID_A";
  auto retry = ask<topic_config>(table, req);
  CHECK_EQ(retry.topic_name, "%RETRY%GID_A");
  CHECK_EQ(retry.read_queue_nums, 1);
  CHECK_EQ(retry.write_queue_nums, 1);
  CHECK_EQ(retry.perm, perm::read_write);
  CHECK_EQ(all().version.counter, 1);
  // Asked again, the existing topic comes back unchanged.
  req.queue_nums = 4;
  CHECK_EQ(ask<topic_config>(table, req), retry);
  CHECK_EQ(all().version.counter, 1);
  req.dlq = true;
  req.queue_nums = 1;
  auto dlq = ask<topic_config>(table, req);
  CHECK_EQ(dlq.topic_name, "%DLQ%GID_A");
  CHECK_EQ(dlq.write_queue_nums, 1);
  CHECK_EQ(dlq.perm, perm::read_write);
  CHECK_EQ(all().version.counter, 2);
  CHECK(file()["topicConfigTable"].contains("%DLQ%GID_A"));
  // Bad groups and fields are refused.
  group_topic_request bad;
  bad.group = "bad group";
  CHECK_EQ(ask_error<topic_config>(table, bad), errc::invalid_parameter);
  bad.group = std::string(121, 'g');
  CHECK_EQ(ask_error<topic_config>(table, bad), errc::invalid_parameter);
  bad.group = "GID_B";
  bad.queue_nums = 0;
  CHECK_EQ(ask_error<topic_config>(table, bad), errc::invalid_parameter);
  bad.queue_nums = 1;
  bad.perm = 9;
  CHECK_EQ(ask_error<topic_config>(table, bad), errc::invalid_parameter);
  CHECK_FALSE(has("%RETRY%GID_B"));
}

TEST_CASE_FIXTURE(fixture, "a corrupt file is kept aside, the table starts "
                           "with the defaults") {
  std::filesystem::create_directories(dir.path() + "/config");
  for (auto text :
       {"{not json", "", "[1,2]", R"({"topicConfigTable":{"A":{"perm":"rw"}}})",
        R"({"topicConfigTable":{"A":{"topicName":"B"}}})"}) {
    CAPTURE(text);
    test::write_file(opts.config_path, text);
    start();
    CHECK(has("TBW102"));
    CHECK_FALSE(has("A"));
    CHECK_FALSE(std::filesystem::exists(opts.config_path));
    auto copy = dump()["corrupt_copy"].get<std::string>();
    CHECK_EQ(test::read_file(copy), text);
    // The next change writes a fresh file.
    put(make("TopicA"));
    CHECK(file()["topicConfigTable"].contains("TopicA"));
    std::filesystem::remove(opts.config_path);
  }
  // Every corrupt copy stays, under its own number.
  CHECK(std::filesystem::exists(opts.config_path + ".corrupt.1"));
  CHECK(std::filesystem::exists(opts.config_path + ".corrupt.5"));
}

TEST_CASE_FIXTURE(fixture, "a file that cannot be read blocks changes") {
  // A folder where the file should be: it can be neither read nor saved.
  std::filesystem::create_directories(opts.config_path);
  start();
  CHECK(has("TBW102"));
  CHECK_EQ(put_error(make("TopicA")), errc::io_error);
  topic_for_send_request req;
  req.topic = "NewTopic";
  CHECK_EQ(for_send_error(req), errc::io_error);
  CHECK_FALSE(has("NewTopic"));
  CHECK_EQ(all().version.counter, 0);
  CHECK_NE(dump()["save_blocked"].get<std::string>(), "");
}

TEST_CASE_FIXTURE(fixture, "a failed save keeps the change, shows it and "
                           "saves again until it lands") {
  start();
  put(make("TopicA"));
  // Make the folder unwritable by putting a folder where the temp file goes.
  std::filesystem::create_directories(opts.config_path + ".tmp");
  auto v = put(make("TopicB"));
  CHECK_EQ(v.counter, 2);
  erase("TopicA");
  CHECK(has("TopicB"));
  CHECK_FALSE(has("TopicA"));
  CHECK_EQ(dump()["save_errors"], 2);
  CHECK_NE(dump()["save_failing"].get<std::string>(), "");
  CHECK(file()["topicConfigTable"].contains("TopicA"));
  std::filesystem::remove_all(opts.config_path + ".tmp");
  advance_time(std::chrono::seconds{2}, std::chrono::milliseconds{500});
  CHECK_EQ(dump()["save_failing"], "");
  CHECK_FALSE(file()["topicConfigTable"].contains("TopicA"));
  CHECK(file()["topicConfigTable"].contains("TopicB"));
}

TEST_CASE_FIXTURE(fixture, "a damaged file is rebuilt from the store's "
                           "consume queues") {
  start();
  put(make("TopicOther", 2));
  stop();
  test::write_file(opts.config_path, "{\"topicConfigTable\": {\"Top");
  // What the store holds queues of (a file that is missing is rebuilt
  // the same way; at a first start the store is empty).
  opts.stored_queue_counts = {{"TopicKept", 3}, {"TBW102", 2}};
  start();
  auto kept = get("TopicKept");
  CHECK_EQ(kept.read_queue_nums, 3);
  CHECK_EQ(kept.write_queue_nums, 3);
  CHECK_EQ(kept.perm, perm::read_write);
  // A default keeps its own settings.
  CHECK_EQ(get("TBW102").write_queue_nums, 8);
  CHECK_FALSE(has("TopicOther")); // never stored a message
  CHECK(file()["topicConfigTable"].contains("TopicKept"));
  CHECK_EQ(dump()["corrupt_copy"], opts.config_path + ".corrupt.1");
}

TEST_CASE_FIXTURE(fixture, "watchers hear of every change until they exit") {
  start();
  auto sets = std::make_shared<std::vector<topic_config_set>>();
  auto watcher = sys.spawn(recorder, sets);
  caf::anon_send(table, caf::subscribe_atom::value, watcher);
  caf::anon_send(table, caf::subscribe_atom::value, watcher); // no duplicate
  sched.run();
  CHECK(sets->empty()); // nothing at subscription
  auto v1 = put(make("TopicA"));
  sched.run();
  REQUIRE_EQ(sets->size(), 1);
  CHECK(same(sets->back().version, v1));
  CHECK_EQ(sets->back().topics, all().topics);
  for_send("NewTopic");
  group_topic_request req;
  req.group = "GID";
  ask<topic_config>(table, req);
  auto v4 = erase("TopicA");
  sched.run();
  REQUIRE_EQ(sets->size(), 4);
  CHECK(same(sets->back().version, v4));
  // Requests that change nothing (or fail) are not announced.
  put(make("NewTopic", 4));
  erase("Unknown");
  put_error(make("TBW102"));
  for_send("NewTopic");
  sched.run();
  CHECK_EQ(sets->size(), 4);
  CHECK_EQ(dump()["watchers"].size(), 1);
  // An exited watcher is dropped.
  caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
  sched.run();
  CHECK_EQ(dump()["watchers"].size(), 0);
  put(make("TopicB"));
  sched.run();
  CHECK_EQ(sets->size(), 4);
}

TEST_CASE_FIXTURE(fixture, "the dump shows topics, version and counters") {
  start();
  put(make("TopicA"));
  auto d = dump();
  CHECK_EQ(d["actor"], "topic_config_table");
  CHECK_EQ(d["path"], opts.config_path);
  CHECK_EQ(d["broker_name"], "broker-a");
  CHECK_EQ(d["data_version"]["counter"], 1);
  CHECK_EQ(d["topic_count"], all().topics.size());
  CHECK_EQ(d["changes"], 1);
  CHECK_EQ(d["saves"], 1);
  bool found = false;
  for (auto& row : d["topics"])
    found = found || row["topic_name"] == "TopicA";
  CHECK(found);
}

TEST_CASE_FIXTURE(fixture, "without a path the table lives in memory") {
  opts.config_path.clear();
  start();
  CHECK_EQ(put(make("TopicA")).counter, 1);
  CHECK(has("TopicA"));
  CHECK(std::filesystem::is_empty(dir.path()));
}
