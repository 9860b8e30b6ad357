#include "runtime/broker/transaction_offsets_file.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/broker/transaction_rules.hpp"

namespace rmq {

namespace {

// RocketMQ keeps the progress as consumer offsets of this group.
constexpr char progress_group[] = "CID_SYS_RMQ_TRANS";

std::string table_key(const char* topic) {
  return std::string{topic} + "@" + progress_group;
}

} // namespace

std::string transaction_offsets_json_path(const std::string& store_root) {
  return store_root + "/config/transactionOffset.json";
}

nlohmann::json to_json_document(const transaction_offsets& offsets) {
  nlohmann::json table
    = {{table_key(trans_half_topic), {{"0", offsets.half}}},
       {table_key(trans_op_half_topic), {{"0", offsets.op}}}};
  return {{"offsetTable", std::move(table)}};
}

caf::error from_json_document(const nlohmann::json& doc,
                              transaction_offsets& out) {
  out = transaction_offsets{};
  if (doc.is_null())
    return {};
  if (!doc.is_object())
    return make_error(errc::corrupt_data, "not a JSON object");
  auto read = [&](const char* topic) -> int64_t {
    auto t = doc.find("offsetTable");
    if (t == doc.end() || !t->is_object())
      return 0;
    auto q = t->find(table_key(topic));
    if (q == t->end() || !q->is_object())
      return 0;
    auto v = q->find("0");
    return v != q->end() && v->is_number_integer()
             ? std::max<int64_t>(v->get<int64_t>(), 0)
             : 0;
  };
  out.half = read(trans_half_topic);
  out.op = read(trans_op_half_topic);
  return {};
}

} // namespace rmq
