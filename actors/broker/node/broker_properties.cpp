#include "actors/broker/node/broker_properties.hpp"

#include <chrono>
#include <cstdint>
#include <sstream>

namespace rmq {

namespace {

std::string bool_text(bool x) {
  return x ? "true" : "false";
}

template <class Duration>
std::string ms(Duration x) {
  return std::to_string(
    std::chrono::duration_cast<std::chrono::milliseconds>(x).count());
}

// A ratio as Java's Double.toString writes the usual ones: 0.9, 0.85.
std::string ratio(double x) {
  std::ostringstream out;
  out << x;
  auto s = out.str();
  return s.find('.') == std::string::npos ? s + ".0" : s;
}

} // namespace

std::map<std::string, std::string>
broker_properties(const broker_options& opts) {
  auto& s = opts.store;
  return {
    {"brokerName", opts.broker_name},
    {"brokerClusterName", opts.cluster_name},
    {"brokerId", std::to_string(opts.broker_id)},
    {"brokerIP1", opts.broker_ip1.empty() ? opts.listen_host : opts.broker_ip1},
    {"brokerIP2",
     opts.broker_ip2.empty()
       ? (opts.broker_ip1.empty() ? opts.listen_host : opts.broker_ip1)
       : opts.broker_ip2},
    // RocketMQ's listenPort is the port its clients know: remoting's.
    {"listenPort", std::to_string(opts.remoting_port)},
    {"cafListenPort", std::to_string(opts.port)},
    {"namesrvAddr", opts.namesrv_addr},
    {"brokerRole", opts.broker_id != 0           ? "SLAVE"
                   : opts.store.sync_replication ? "SYNC_MASTER"
                                                 : "ASYNC_MASTER"},
    {"storePathRootDir", opts.store_dir},
    {"flushDiskType",
     opts.flush == storage::flush_mode::sync ? "SYNC_FLUSH" : "ASYNC_FLUSH"},
    {"registerNameServerPeriod", ms(opts.register_interval)},
    {"autoCreateTopicEnable", bool_text(opts.auto_create_topic)},
    {"autoCreateSubscriptionGroup",
     bool_text(opts.auto_create_subscription_group)},
    {"storeReplyMessageEnable", bool_text(opts.store_reply_message_enable)},
    {"rejectTransactionMessage", bool_text(opts.reject_transaction_message)},
    {"transactionTimeOut", ms(opts.transaction_timeout)},
    {"transactionCheckInterval", ms(opts.transaction_check_interval)},
    {"transactionCheckMax", std::to_string(opts.transaction_check_max)},
    {"maxTransferCountOnMessageInMemory",
     std::to_string(opts.max_transfer_count)},
    {"maxTransferBytesOnMessageInMemory",
     std::to_string(opts.max_transfer_bytes)},
    {"timerMaxDelaySec", std::to_string(opts.timer.max_delay_sec)},
    {"timerPrecisionMs", std::to_string(opts.timer.precision_ms)},
    {"mappedFileSizeCommitLog", std::to_string(s.segment_size)},
    {"mappedFileSizeConsumeQueue", std::to_string(s.cq_units_per_file * 20)},
    {"maxMessageSize", std::to_string(s.max_message_size)},
    {"flushIntervalCommitLog", ms(s.flush_interval)},
    {"syncFlushTimeout", ms(s.sync_flush_timeout)},
    {"fileReservedTime",
     std::to_string(
       std::chrono::duration_cast<std::chrono::hours>(s.retention).count())},
    {"diskSpaceWarningLevelRatio", ratio(s.disk_full_ratio)},
    {"diskSpaceCleanForciblyRatio", ratio(s.disk_clean_ratio)},
    {"cleanFileForciblyEnable", bool_text(s.clean_forcibly)},
  };
}

} // namespace rmq
