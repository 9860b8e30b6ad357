// Golden frames for the answers our broker and NameServer give, held
// against the frames RocketMQ's own nodes write (apache/rocketmq's current
// 5.x sources, read at 8fc57f1468: RocketMQSerializable, RemotingCommand,
// the *ResponseHeader classes, the processors and the body classes, as
// fastjson 1.2.83 writes them). Each answer is built by its runtime/remoting function from a
// request with a fixed opaque and a typed result, encoded, and compared in
// both header serializations with one golden: RocketMQ's binary frame,
// written out below.
//
// - Binary header (serializeType 1): RocketMQSerializable's
//   rocketMQProtocolEncode, byte for byte but for the order of the
//   extFields entries, which are compared as a set. A FastCodesHeader
//   (SendMessageResponseHeader, PullMessageResponseHeader) writes its own
//   fields first, in declaration order (RemotingCommand.fastEncodeHeader,
//   since 4.9.4), and every other key comes out of a java.util.HashMap
//   (the goldens list them so); ours are sorted. The order carries
//   nothing: every RocketMQ decoder (RocketMQSerializable's
//   mapDeserialize, the FastCodesHeader decoders) reads extFields into a
//   map before it looks at a key.
// - JSON header: fastjson writes extFields (a HashMap) in no fixed order,
//   so the header is parsed and compared field by field (code, flag,
//   opaque, remark, extFields values as strings, serializeTypeCurrentRPC),
//   with the frame's length and header-length fields.
// - language and version name the writer: ours are CPP (1) and 401
//   (V4_9_4, docs/remoting.md "Versions") where a Java node writes JAVA (0)
//   and its own MQVersion ordinal. The goldens carry ours.
// - Bodies byte for byte where RocketMQ's are fixed (fastjson sorts a
//   bean's fields; a map of one entry has one order), else compared as JSON
//   values.
//
// Where our answer still differs from RocketMQ's (on purpose, or for want
// of state RocketMQ keeps and we do not), the golden is ours and a
// "DIFFERS" comment says what RocketMQ writes instead and why ours stands;
// an exception's remark is held only to the part of RocketMQ's we write
// (remark_match::message_part). A value of state RocketMQ keeps and we do
// not, where we answer with what we have, is taken from ours
// (golden::free_values): its key is still checked.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "caf/sec.hpp"

#include "messages/common/errors.hpp"
#include "runtime/remoting/broker_admin_codec.hpp"
#include "runtime/remoting/client_manage_codec.hpp"
#include "runtime/remoting/client_request_headers.hpp"
#include "runtime/remoting/error_response.hpp"
#include "runtime/remoting/frame_codec.hpp"
#include "runtime/remoting/message_query_codec.hpp"
#include "runtime/remoting/namesrv_body.hpp"
#include "runtime/remoting/remoting_codes.hpp"
#include "tests/support/frame_bytes.hpp"

using namespace rmq;
using namespace rmq::remoting;
using rmq::test::bytes;

namespace {

using json = nlohmann::json;

constexpr int32_t fixed_opaque = 4711; // 0x00001267 in every golden

// LanguageCode.java, in code order.
const char* const language_names[]
  = {"JAVA",  "CPP",  "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY",
     "OTHER", "HTTP", "GO",     "PHP",    "OMS",    "RUST",   "NODE_JS"};

// A request as a Java client sends it; only what an answer copies
// matters (opaque, serialization).
remoting_command request(int32_t code, serialize_type how,
                         int32_t version = 479) {
  remoting_command req;
  req.code = code;
  req.language = "JAVA";
  req.version = version;
  req.opaque = fixed_opaque;
  req.serialization = how;
  return req;
}

// Bytes as doctest shows them: printable ASCII kept, the rest as \xNN.
std::string shown(const std::string& x) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : x)
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 0xf]);
    }
  return out;
}

uint32_t be32_at(const std::string& x, size_t pos) {
  REQUIRE(pos + 4 <= x.size());
  uint32_t out = 0;
  for (size_t i = 0; i < 4; ++i)
    out = (out << 8) | static_cast<unsigned char>(x[pos + i]);
  return out;
}

uint16_t be16_at(const std::string& x, size_t pos) {
  REQUIRE(pos + 2 <= x.size());
  return static_cast<uint16_t>((static_cast<unsigned char>(x[pos]) << 8)
                               | static_cast<unsigned char>(x[pos + 1]));
}

using ext_list = std::vector<std::pair<std::string, std::string>>;

// A frame with a binary header cut where RocketMQSerializable puts its
// fields.
struct binary_frame {
  std::string prefix; // length, serialize type | header length
  std::string fixed;  // code, language, version, opaque, flag
  int32_t code = 0;
  uint8_t language = 0;
  int32_t version = 0;
  int32_t opaque = 0;
  int32_t flag = 0;
  std::string remark; // empty: none
  ext_list ext;       // in wire order
  std::string body;
};

binary_frame cut_binary(const std::string& frame) {
  binary_frame out;
  REQUIRE(frame.size() >= 8);
  REQUIRE_EQ(be32_at(frame, 0), frame.size() - 4);
  auto mark = be32_at(frame, 4);
  REQUIRE_EQ(mark >> 24, 1u);
  size_t header_end = 8 + (mark & 0xFFFFFF);
  REQUIRE(header_end <= frame.size());
  out.prefix = frame.substr(0, 8);
  out.fixed = frame.substr(8, 13);
  out.code = static_cast<int16_t>(be16_at(frame, 8));
  out.language = static_cast<uint8_t>(frame[10]);
  out.version = static_cast<int16_t>(be16_at(frame, 11));
  out.opaque = static_cast<int32_t>(be32_at(frame, 13));
  out.flag = static_cast<int32_t>(be32_at(frame, 17));
  size_t pos = 21;
  auto remark_len = be32_at(frame, pos);
  pos += 4;
  REQUIRE(pos + remark_len <= header_end);
  out.remark = frame.substr(pos, remark_len);
  pos += remark_len;
  auto ext_len = be32_at(frame, pos);
  pos += 4;
  REQUIRE_EQ(pos + ext_len, header_end);
  while (pos < header_end) {
    auto klen = be16_at(frame, pos);
    pos += 2;
    auto key = frame.substr(pos, klen);
    pos += klen;
    auto vlen = be32_at(frame, pos);
    pos += 4;
    REQUIRE(pos + vlen <= header_end);
    out.ext.emplace_back(key, frame.substr(pos, vlen));
    pos += vlen;
  }
  out.body = frame.substr(header_end);
  return out;
}

// extFields entries as doctest shows them: "key=value" in the given
// order.
std::string listed(ext_list::const_iterator first,
                   ext_list::const_iterator last) {
  std::string out;
  for (; first != last; ++first)
    out += (out.empty() ? "" : "; ") + first->first + "=" + first->second;
  return out;
}

// extFields entries as a set, shown sorted by key.
std::string as_set(ext_list::const_iterator first,
                   ext_list::const_iterator last) {
  std::map<std::string, std::string> sorted{first, last};
  ext_list entries{sorted.begin(), sorted.end()};
  return listed(entries.begin(), entries.end());
}

/// How much of RocketMQ's remark is fixed.
enum class remark_match {
  exact,
  /// An exception's remark (UtilAll.exceptionSimpleDesc): the exception's
  /// class, its message and the top stack frame, which moves with every
  /// release. Ours is the message alone, which RocketMQ's must contain.
  message_part,
};

/// How much of RocketMQ's body is fixed.
enum class body_match {
  exact,
  /// JSON whose maps come out of a HashMap: compared as JSON values.
  json_value,
};

struct golden {
  /// What the answer is.
  std::string what;
  /// The request's code.
  int32_t request_code;
  /// Our answer to the request.
  std::function<remoting_command(const remoting_command&)> answer;
  /// The frame RocketMQ writes, binary header.
  std::string java;
  remark_match remark = remark_match::exact;
  body_match body = body_match::exact;
  /// JSON pointers into RocketMQ's body to values our typed answer does
  /// not carry (broker state RocketMQ has and we do not): taken from ours
  /// where ours has the key at all.
  std::vector<std::string> free_values = {};
};

void check_body(const golden& g, const std::string& ours,
                const std::string& java) {
  if (g.body == body_match::exact) {
    CHECK_EQ(shown(ours), shown(java));
    return;
  }
  auto a = json::parse(ours, nullptr, false);
  auto b = json::parse(java, nullptr, false);
  REQUIRE_FALSE(a.is_discarded());
  REQUIRE_FALSE(b.is_discarded());
  for (auto& path : g.free_values) {
    json::json_pointer p{path};
    if (a.contains(p))
      b[p] = a[p];
  }
  // nlohmann's objects are sorted: equal dumps are equal values.
  CHECK_EQ(a.dump(), b.dump());
}

void check_remark(const golden& g, const std::string& ours,
                  const std::string& java) {
  if (g.remark == remark_match::exact) {
    CHECK_EQ(ours, java);
    return;
  }
  CHECK_FALSE(ours.empty());
  CHECK_NE(java.find(ours), std::string::npos);
}

// The binary frame of our answer against RocketMQ's.
void check_binary(const golden& g) {
  CAPTURE(g.what);
  auto req = request(g.request_code, serialize_type::rocketmq);
  auto frame = encode_frame(g.answer(req));
  auto ours = cut_binary(frame);
  auto java = cut_binary(g.java);
  // The lengths, unless RocketMQ's remark is longer by its stack frame.
  if (g.remark == remark_match::exact)
    CHECK_EQ(shown(ours.prefix), shown(java.prefix));
  CHECK_EQ(shown(ours.fixed), shown(java.fixed));
  check_remark(g, ours.remark, java.remark);
  // extFields as a set (see the top of this file).
  CHECK_EQ(as_set(ours.ext.begin(), ours.ext.end()),
           as_set(java.ext.begin(), java.ext.end()));
  check_body(g, ours.body, java.body);
  // Byte for byte where nothing is left to order or to RocketMQ's state.
  if (g.remark == remark_match::exact && g.body == body_match::exact
      && java.ext.size() <= 1)
    CHECK_EQ(shown(frame), shown(g.java));
}

// The JSON frame of our answer against the fields of RocketMQ's.
void check_json(const golden& g) {
  CAPTURE(g.what);
  auto req = request(g.request_code, serialize_type::json);
  auto frame = encode_frame(g.answer(req));
  auto java = cut_binary(g.java);
  REQUIRE(frame.size() >= 8);
  CHECK_EQ(be32_at(frame, 0), frame.size() - 4);
  auto mark = be32_at(frame, 4);
  CHECK_EQ(mark >> 24, 0u); // JSON
  size_t header_len = mark & 0xFFFFFF;
  REQUIRE(8 + header_len <= frame.size());
  auto header = json::parse(frame.substr(8, header_len), nullptr, false);
  REQUIRE(header.is_object());
  CHECK_EQ(header.value("code", -1), java.code);
  CHECK_EQ(header.value("flag", -1), java.flag);
  CHECK_EQ(header.value("opaque", -1), java.opaque);
  REQUIRE_LT(java.language, 14);
  CHECK_EQ(header.value("language", ""), language_names[java.language]);
  CHECK_EQ(header.value("version", -1), java.version);
  CHECK_EQ(header.value("serializeTypeCurrentRPC", ""), "JSON");
  // A null remark is left out, as fastjson leaves out nulls.
  if (java.remark.empty())
    CHECK_FALSE(header.contains("remark"));
  else
    check_remark(g, header.value("remark", ""), java.remark);
  // No extFields and an empty object mean the same to a reader.
  ext_list ext;
  if (auto i = header.find("extFields"); i != header.end()) {
    REQUIRE(i->is_object());
    for (auto& [k, v] : i->items()) {
      CAPTURE(k);
      CHECK(v.is_string()); // Java writes every value as a string
      ext.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    }
  }
  CHECK_EQ(as_set(ext.begin(), ext.end()),
           as_set(java.ext.begin(), java.ext.end()));
  check_body(g, frame.substr(8 + header_len), java.body);
}

// `frame` with the response code `code` (same length).
std::string with_code(std::string frame, uint16_t code) {
  frame[8] = static_cast<char>(code >> 8);
  frame[9] = static_cast<char>(code & 0xff);
  return frame;
}

// A body-only SUCCESS, as the nodes' handlers answer with a body
// (with_body in actors/broker/node/broker_remoting.cpp and
// actors/namesrv/namesrv_remoting.cpp).
remoting_command with_body(const remoting_command& req, std::string body) {
  auto res = make_response(req, response_code::success);
  res.body = std::move(body);
  return res;
}

// -- the fixtures ---------------------------------------------------------

// One stored message as the commit log holds it and a pull, a view or a
// query returns it (MessageDecoder's layout, V1 magic): 115 bytes.
const std::string record = bytes(
  "00000073 daa320a7 77d18982 "     // totalSize, magic V1, bodyCRC
  "00000003 00000000 "              // queueId 3, flag
  "00000000000004d2 "               // queueOffset 1234
  "00000000000ab4c2 "               // physicalOffset 701634
  "00000000 000001a22619623f "      // sysFlag, bornTimestamp
  "7f000001 0000c350 "              // bornHost 127.0.0.1:50000
  "000001a226196242 "               // storeTimestamp
  "7f000001 000051af "              // storeHost 127.0.0.1:20911
  "00000000 0000000000000000 "      // reconsumeTimes, preparedTransactionOffset
  "00000005 \"Hello\" "             // body
  "09 \"TopicTest\" "               // topic
  "000a \"TAGS\" 01 \"TagA\" 02 "); // properties

// The offset message id of `record`, and its client message id.
const std::string offset_msg_id = "7F000001000051AF00000000000AB4C2";
const std::string uniq_key = "7F0000013E8C18B4AAC2580A9A2E0000";

send_result stored(send_status status) {
  send_result res;
  res.status = static_cast<uint8_t>(status);
  res.msg_id = uniq_key;
  res.offset_msg_id = offset_msg_id;
  res.queue_id = 3;
  res.queue_offset = 1234;
  res.queue_offsets = {1234};
  return res;
}

pull_message_result pulled(pull_status status) {
  pull_message_result res;
  res.status = static_cast<uint8_t>(status);
  res.next_begin_offset = 1235;
  res.min_offset = 0;
  res.max_offset = 1235;
  res.suggest_which_broker_id = 0;
  if (status == pull_status::found) {
    res.buffer = record;
    res.message_count = 1;
  }
  return res;
}

broker_data broker_a(std::map<int64_t, std::string> addrs) {
  broker_data bd;
  bd.cluster = "DefaultCluster";
  bd.broker_name = "broker-a";
  // CAF addresses, which remoting clients never see.
  for (auto& [id, addr] : addrs)
    bd.broker_addrs[id] = "10.9.9.9:" + std::to_string(7000 + id);
  bd.remoting_addrs = std::move(addrs);
  return bd;
}

topic_route_data route() {
  topic_route_data r;
  r.queue_datas.push_back({"broker-a", 4, 4, perm::read_write, 0});
  r.broker_datas.push_back(
    broker_a({{0, "127.0.0.1:10911"}, {1, "127.0.0.1:10921"}}));
  return r;
}

// -- the goldens, one list per family ---------------------------------------

std::vector<golden> send_goldens() {
  // SendMessageResponseHeader (FastCodesHeader: msgId, queueId,
  // queueOffset, transactionId in this order), then the extFields
  // SendMessageProcessor adds to every send answer from a HashMap:
  // MSG_REGION (BrokerConfig.regionId, "DefaultRegion") and TRACE_ON
  // (BrokerConfig.traceOn, "true"), which a Java producer copies into its
  // SendResult (MQClientAPIImpl.processSendResponse).
  auto java_ok = bytes(
    "000000c9 010000c5 "              // length 201; ROCKETMQ, header 197
    "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
    "00000000 "                       // no remark
    "000000b0 "                       // extFields, 176 bytes
    "0005 \"msgId\" 00000020 \"7F000001000051AF00000000000AB4C2\" "
    "0007 \"queueId\" 00000001 \"3\" "
    "000b \"queueOffset\" 00000004 \"1234\" "
    "000d \"transactionId\" 00000020 \"7F0000013E8C18B4AAC2580A9A2E0000\" "
    "0008 \"TRACE_ON\" 00000004 \"true\" "
    "000a \"MSG_REGION\" 0000000d \"DefaultRegion\" ");
  auto answer = [](send_status s) {
    return [s](const remoting_command& req) {
      return send_response(req, stored(s));
    };
  };
  send_result batch = stored(send_status::send_ok);
  batch.msg_id = uniq_key + ",7F0000013E8C18B4AAC2580A9A2E0001";
  batch.offset_msg_id = offset_msg_id + ",7F000001000051AF00000000000AB535";
  batch.queue_offsets = {1234, 1235};
  return {
    {"SEND_MESSAGE_V2, stored", request_code::send_message_v2,
     answer(send_status::send_ok), java_ok},
    // SEND_MESSAGE (10) is answered with the same SendMessageResponseHeader.
    {"SEND_MESSAGE (full names), stored", request_code::send_message,
     answer(send_status::send_ok), java_ok},
    // ResponseCode FLUSH_DISK_TIMEOUT (10), FLUSH_SLAVE_TIMEOUT (12),
    // SLAVE_NOT_AVAILABLE (11): stored, the same header, remark null.
    {"SEND_MESSAGE_V2, FLUSH_DISK_TIMEOUT", request_code::send_message_v2,
     answer(send_status::flush_disk_timeout), with_code(java_ok, 10)},
    {"SEND_MESSAGE_V2, FLUSH_SLAVE_TIMEOUT", request_code::send_message_v2,
     answer(send_status::flush_slave_timeout), with_code(java_ok, 12)},
    {"SEND_MESSAGE_V2, SLAVE_NOT_AVAILABLE", request_code::send_message_v2,
     answer(send_status::slave_not_available), with_code(java_ok, 11)},
    // A batch: the offset message ids comma-joined, the first queue
    // offset; a MessageBatch carries no UNIQ_KEY of its own, so no
    // transactionId.
    {"SEND_BATCH_MESSAGE, stored", request_code::send_batch_message,
     [batch](const remoting_command& req) { return send_response(req, batch); },
     bytes(
       "000000b7 010000b3 "              // length 183; ROCKETMQ, header 179
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "0000009e "                       // extFields, 158 bytes
       "0005 \"msgId\" 00000041 "
       "\"7F000001000051AF00000000000AB4C2,7F000001000051AF00000000000AB535\" "
       "0007 \"queueId\" 00000001 \"3\" "
       "000b \"queueOffset\" 00000004 \"1234\" "
       "0008 \"TRACE_ON\" 00000004 \"true\" "
       "000a \"MSG_REGION\" 0000000d \"DefaultRegion\" ")},
  };
}

std::vector<golden> pull_goldens() {
  auto answer_to = [](pull_message_result res) {
    return
      [res](const remoting_command& req) { return pull_response(req, res); };
  };
  auto answer = [answer_to](pull_status s) { return answer_to(pulled(s)); };
  // PullMessageResponseHeader (FastCodesHeader: suggestWhichBrokerId,
  // nextBeginOffset, minOffset, maxOffset in this order; ours come sorted,
  // the same set); the remark is the store's GetMessageStatus name
  // (PullMessageProcessor).
  auto empty_queue = pulled(pull_status::no_new_msg);
  empty_queue.next_begin_offset = 0;
  empty_queue.max_offset = 0;
  auto below_min = pulled(pull_status::offset_illegal);
  below_min.min_offset = 100;
  below_min.next_begin_offset = 100;
  return {
    // FOUND: the stored records as they are.
    {"PULL_MESSAGE, FOUND", request_code::pull_message,
     answer(pull_status::found),
     bytes(
       "000000e8 01000071 "              // length 232; ROCKETMQ, header 113
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000005 \"FOUND\" "             // remark
       "00000057 "                       // extFields, 87 bytes
       "0014 \"suggestWhichBrokerId\" 00000001 \"0\" "
       "000f \"nextBeginOffset\" 00000004 \"1235\" "
       "0009 \"minOffset\" 00000001 \"0\" "
       "0009 \"maxOffset\" 00000004 \"1235\" ")
       + record},
    // PULL_NOT_FOUND (19) for a request at the queue's max offset: the
    // store says OFFSET_OVERFLOW_ONE.
    {"PULL_MESSAGE, PULL_NOT_FOUND", request_code::pull_message,
     answer(pull_status::no_new_msg),
     bytes(
       "00000083 0100007f "              // length 131; ROCKETMQ, header 127
       "0013 01 0191 00001267 00000001 " // code 19, CPP, 401, opaque, RESPONSE
       "00000013 \"OFFSET_OVERFLOW_ONE\" " // remark
       "00000057 "                         // extFields, 87 bytes
       "0014 \"suggestWhichBrokerId\" 00000001 \"0\" "
       "000f \"nextBeginOffset\" 00000004 \"1235\" "
       "0009 \"minOffset\" 00000001 \"0\" "
       "0009 \"maxOffset\" 00000004 \"1235\" ")},
    // PULL_NOT_FOUND (19) for a request at offset 0 of an empty queue: the
    // store says NO_MESSAGE_IN_QUEUE.
    {"PULL_MESSAGE, PULL_NOT_FOUND, empty queue", request_code::pull_message,
     answer_to(empty_queue),
     bytes(
       "0000007d 01000079 "              // length 125; ROCKETMQ, header 121
       "0013 01 0191 00001267 00000001 " // code 19, CPP, 401, opaque, RESPONSE
       "00000013 \"NO_MESSAGE_IN_QUEUE\" " // remark
       "00000051 "                         // extFields, 81 bytes
       "0014 \"suggestWhichBrokerId\" 00000001 \"0\" "
       "000f \"nextBeginOffset\" 00000001 \"0\" "
       "0009 \"minOffset\" 00000001 \"0\" "
       "0009 \"maxOffset\" 00000001 \"0\" ")},
    // PULL_RETRY_IMMEDIATELY (20): nothing matched the subscription.
    {"PULL_MESSAGE, PULL_RETRY_IMMEDIATELY", request_code::pull_message,
     answer(pull_status::no_matched_msg),
     bytes(
       "00000082 0100007e "               // length 130; ROCKETMQ, header 126
       "0014 01 0191 00001267 00000001 "  // code 20, CPP, 401, opaque, RESPONSE
       "00000012 \"NO_MATCHED_MESSAGE\" " // remark
       "00000057 "                        // extFields, 87 bytes
       "0014 \"suggestWhichBrokerId\" 00000001 \"0\" "
       "000f \"nextBeginOffset\" 00000004 \"1235\" "
       "0009 \"minOffset\" 00000001 \"0\" "
       "0009 \"maxOffset\" 00000004 \"1235\" ")},
    // PULL_OFFSET_MOVED (21) for a request past the max offset, sent on to
    // the end: the store says OFFSET_OVERFLOW_BADLY.
    {"PULL_MESSAGE, PULL_OFFSET_MOVED", request_code::pull_message,
     answer(pull_status::offset_illegal),
     bytes(
       "00000085 01000081 "              // length 133; ROCKETMQ, header 129
       "0015 01 0191 00001267 00000001 " // code 21, CPP, 401, opaque, RESPONSE
       "00000015 \"OFFSET_OVERFLOW_BADLY\" " // remark
       "00000057 "                           // extFields, 87 bytes
       "0014 \"suggestWhichBrokerId\" 00000001 \"0\" "
       "000f \"nextBeginOffset\" 00000004 \"1235\" "
       "0009 \"minOffset\" 00000001 \"0\" "
       "0009 \"maxOffset\" 00000004 \"1235\" ")},
    // PULL_OFFSET_MOVED (21) for a request below the min offset, sent on
    // to the start: the store says OFFSET_TOO_SMALL.
    {"PULL_MESSAGE, PULL_OFFSET_MOVED, below the min",
     request_code::pull_message, answer_to(below_min),
     bytes(
       "00000081 0100007d "              // length 129; ROCKETMQ, header 125
       "0015 01 0191 00001267 00000001 " // code 21, CPP, 401, opaque, RESPONSE
       "00000010 \"OFFSET_TOO_SMALL\" "  // remark
       "00000058 "                       // extFields, 88 bytes
       "0014 \"suggestWhichBrokerId\" 00000001 \"0\" "
       "000f \"nextBeginOffset\" 00000003 \"100\" "
       "0009 \"minOffset\" 00000003 \"100\" "
       "0009 \"maxOffset\" 00000004 \"1235\" ")},
  };
}

std::vector<golden> offset_goldens() {
  auto answer = [](int64_t offset) {
    return [offset](const remoting_command& req) {
      return offset_response(req, offset);
    };
  };
  return {
    // QueryConsumerOffsetResponseHeader: offset.
    {"QUERY_CONSUMER_OFFSET", request_code::query_consumer_offset, answer(1234),
     bytes(
       "00000029 01000025 "              // length 41; ROCKETMQ, header 37
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000010 "                       // extFields, 16 bytes
       "0006 \"offset\" 00000004 \"1234\" ")},
    // GetMaxOffsetResponseHeader: offset.
    {"GET_MAX_OFFSET", request_code::get_max_offset, answer(1235),
     bytes(
       "00000029 01000025 "              // length 41; ROCKETMQ, header 37
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000010 "                       // extFields, 16 bytes
       "0006 \"offset\" 00000004 \"1235\" ")},
    // GetMinOffsetResponseHeader: offset.
    {"GET_MIN_OFFSET", request_code::get_min_offset, answer(0),
     bytes(
       "00000026 01000022 "              // length 38; ROCKETMQ, header 34
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "0000000d "                       // extFields, 13 bytes
       "0006 \"offset\" 00000001 \"0\" ")},
    // SearchOffsetResponseHeader: offset.
    {"SEARCH_OFFSET_BY_TIMESTAMP", request_code::search_offset_by_timestamp,
     answer(1200),
     bytes(
       "00000029 01000025 "              // length 41; ROCKETMQ, header 37
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000010 "                       // extFields, 16 bytes
       "0006 \"offset\" 00000004 \"1200\" ")},
  };
}

std::vector<golden> consumer_list_goldens() {
  // GetConsumerListByGroupResponseBody: consumerIdList, in the order given.
  return {
    {"GET_CONSUMER_LIST_BY_GROUP", request_code::get_consumer_list_by_group,
     [](const remoting_command& req) {
       return consumer_list_response(
         req, consumer_list{{"127.0.0.1@1234", "10.0.0.2@5678"}});
     },
     bytes(
       "0000004e 01000015 "              // length 78; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + R"({"consumerIdList":["127.0.0.1@1234","10.0.0.2@5678"]})"},
  };
}

std::vector<golden> consumer_connection_goldens() {
  // ConsumerConnection (connectionSet, consumeFromWhere, consumeType,
  // messageModel, subscriptionTable), Connection (clientAddr, clientId,
  // language, version) and SubscriptionData (classFilterMode, codeSet,
  // expressionType, subString, subVersion, tagsSet, topic): fields sorted,
  // enums by name. One connection and one subscription: one order.
  consumer_connection x;
  x.connections.push_back({"127.0.0.1@1234", "127.0.0.1:50000", "JAVA", 479});
  subscription_data sub;
  sub.topic = "TopicTest";
  sub.sub_string = "TagA";
  sub.tags_set = {"TagA"};
  sub.code_set = {2598919}; // "TagA".hashCode()
  sub.sub_version = 1795935190710;
  x.subscriptions.push_back(sub);
  x.type = consume_type::consume_passively;
  x.model = message_model::clustering;
  x.from_where = consume_from_where::consume_from_first_offset;
  return {
    {"GET_CONSUMER_CONNECTION_LIST", request_code::get_consumer_connection_list,
     [x](const remoting_command& req) {
       return consumer_connection_response(req, x);
     },
     bytes(
       "000001b2 01000015 "              // length 434; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + R"({"connectionSet":[{"clientAddr":"127.0.0.1:50000","clientId":"127.0.0.1@1234","language":"JAVA","version":479}],"consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING","subscriptionTable":{"TopicTest":{"classFilterMode":false,"codeSet":[2598919],"expressionType":"TAG","subString":"TagA","subVersion":1795935190710,"tagsSet":["TagA"],"topic":"TopicTest"}}})"},
  };
}

std::vector<golden> lock_goldens() {
  // LockBatchResponseBody: lockOKMQSet of MessageQueue (brokerName,
  // queueId, topic). A HashSet: one queue, one order.
  return {
    {"LOCK_BATCH_MQ", request_code::lock_batch_mq,
     [](const remoting_command& req) {
       return locked_response(req,
                              locked_queues{{{"TopicTest", "broker-a", 3}}});
     },
     bytes(
       "00000064 01000015 "              // length 100; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + R"({"lockOKMQSet":[{"brokerName":"broker-a","queueId":3,"topic":"TopicTest"}]})"},
  };
}

std::vector<golden> view_goldens() {
  // QueryMessageProcessor.viewMessageById: no custom header, the record as
  // the body.
  return {
    {"VIEW_MESSAGE_BY_ID", request_code::view_message_by_id,
     [](const remoting_command& req) {
       return view_message_response(req, record);
     },
     bytes(
       "0000008c 01000015 "              // length 140; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + record},
  };
}

std::vector<golden> query_goldens() {
  // QueryMessageResponseHeader: indexLastUpdateTimestamp and
  // indexLastUpdatePhyoffset (makeCustomHeaderToNet into a HashMap), the
  // records as the body. RocketMQ's values are its index file's last
  // update; ours are 0 and the last record's offset.
  query_message_result found;
  found.buffer = record;
  found.phys_offsets = {701634};
  return {
    {"QUERY_MESSAGE, found", request_code::query_message,
     [found](const remoting_command& req) {
       return query_message_response(req, found);
     },
     bytes(
       "000000cf 01000058 "              // length 207; ROCKETMQ, header 88
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000043 "                       // extFields, 67 bytes
       "0018 \"indexLastUpdatePhyoffset\" 00000006 \"701634\" "
       "0018 \"indexLastUpdateTimestamp\" 00000001 \"0\" ")
       + record},
    // QUERY_NOT_FOUND (22), RocketMQ's remark. DIFFERS: QueryMessageProcessor
    // fills the header before it looks at the result, so RocketMQ's error
    // carries the two index fields too (its index files' last update, 0
    // and 0 for an empty index: "0018 indexLastUpdatePhyoffset 00000001
    // 0 0018 indexLastUpdateTimestamp 00000001 0", 62 bytes of extFields).
    // Ours has none: our phyoffset is the last found record's, and with
    // nothing found our lookup result carries no index figure to give.
    // A Java client reads neither field of a QUERY_NOT_FOUND
    // (MQAdminImpl.queryMessage).
    {"QUERY_MESSAGE, QUERY_NOT_FOUND", request_code::query_message,
     [](const remoting_command& req) {
       return query_message_response(req, query_message_result{});
     },
     bytes(
       "0000004b 01000047 "              // length 75; ROCKETMQ, header 71
       "0016 01 0191 00001267 00000001 " // code 22, CPP, 401, opaque, RESPONSE
       "00000032 \"can not find message, maybe time range not correct\" " // remark
       "00000000 " /* no extFields */)},
  };
}

std::vector<golden> error_goldens() {
  return {
    // NettyRemotingAbstract.processRequestCommand for a code without a
    // processor: REQUEST_CODE_NOT_SUPPORTED (3), no custom header.
    {"REQUEST_CODE_NOT_SUPPORTED", 1000,
     [](const remoting_command& req) { return not_supported(req); },
     bytes(
       "00000039 01000035 "              // length 57; ROCKETMQ, header 53
       "0003 01 0191 00001267 00000001 " // code 3, CPP, 401, opaque, RESPONSE
       "00000020 \" request type 1000 not supported\" " // remark
       "00000000 " /* no extFields */)},
    // An error with a RocketMQ ResponseCode keeps it, its detail is the
    // remark (RemotingCommand.createResponseCommand(code, remark)); the
    // text here is AbstractSendMessageProcessor's for a missing topic.
    {"error_response, TOPIC_NOT_EXIST", request_code::send_message_v2,
     [](const remoting_command& req) {
       return error_response(
         req, make_error(errc::topic_not_exist,
                         "topic[TopicTest] not exist, apply first please!"));
     },
     bytes(
       "00000048 01000044 "              // length 72; ROCKETMQ, header 68
       "0011 01 0191 00001267 00000001 " // code 17, CPP, 401, opaque, RESPONSE
       "0000002f \"topic[TopicTest] not exist, apply first please!\" " // remark
       "00000000 " /* no extFields */)},
    // Our own failures (here CAF's request timeout) are SYSTEM_ERROR (1).
    {"error_response, SYSTEM_ERROR", request_code::pull_message,
     [](const remoting_command& req) {
       return error_response(req, caf::make_error(caf::sec::request_timeout));
     },
     bytes(
       "0000002d 01000029 "              // length 45; ROCKETMQ, header 41
       "0001 01 0191 00001267 00000001 " // code 1, CPP, 401, opaque, RESPONSE
       "00000014 \"caf::request_timeout\" " // remark
       "00000000 " /* no extFields */)},
    // A missing @CFNotNull field: RemotingCommand.decodeCommandCustomHeader
    // throws, NettyRemotingAbstract answers SYSTEM_ERROR with
    // UtilAll.exceptionSimpleDesc (exception, message, top stack frame).
    // DIFFERS, not compared: ours is the message alone.
    {"missing_field", request_code::get_routeinfo_by_topic,
     [](const remoting_command& req) { return missing_field(req, "topic"); },
     bytes(
       "000000ed 010000e9 "              // length 237; ROCKETMQ, header 233
       "0001 01 0191 00001267 00000001 " // code 1, CPP, 401, opaque, RESPONSE
       "000000d4 "
       "\"org.apache.rocketmq.remoting.exception.RemotingCommandException: the "
       "custom field <topic> is null, "
       "org.apache.rocketmq.remoting.protocol.RemotingCommand."
       "decodeCommandCustomHeaderDirectly(RemotingCommand.java:307)\" " // remark
       "00000000 " /* no extFields */),
     remark_match::message_part},
    // A plain SUCCESS (UPDATE_CONSUMER_OFFSET, UNREGISTER_CLIENT,
    // UNLOCK_BATCH_MQ, ...): RemotingCommand.createResponseCommand and
    // setRemark(null). A Java node's JSON header then carries
    // "extFields":{} when the processor named a header class: the same as
    // none to every reader.
    {"make_response, SUCCESS", request_code::update_consumer_offset,
     [](const remoting_command& req) {
       return make_response(req, response_code::success);
     },
     bytes(
       "00000019 01000015 "              // length 25; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 " /* no extFields */)},
  };
}

std::vector<golden> admin_goldens() {
  topic_config tc;
  tc.topic_name = "TopicTest";
  tc.read_queue_nums = 4;
  tc.write_queue_nums = 4;
  topic_config_set topics{{tc}, data_version{0, 1795935358330, 1}};
  subscription_group_config g;
  g.group_name = "GID_GOLDEN";
  subscription_group_set groups{{g}, data_version{0, 1795935358330, 2}};
  topic_stats stats{"TopicTest", "broker-a", {{0, 0, 1235, 1795935527490}}};
  consume_stats progress{
    {{"TopicTest", "broker-a", 0, 1235, 1200, 1795935527490}}, 1.5};
  broker_runtime_info info{
    {{"msgPutTotalTodayNow", "17"}, {"putTps", "1.5 2.0 3.0"}}};
  return {
    // AdminBrokerProcessor.getAllTopicConfig: GetAllTopicConfigResponseHeader
    // (totalTopicNum) and TopicConfigAndMappingSerializeWrapper
    // (dataVersion, mappingDataVersion, topicConfigTable,
    // topicQueueMappingDetailMap, topicQueueMappingInfoMap), TopicConfig
    // and DataVersion fields sorted. mappingDataVersion is the version of
    // RocketMQ's static-topic mappings (TopicQueueMappingManager: counter 0
    // and its start time while nothing was mapped); we have no mappings
    // and give the topic table's version, so its counter and timestamp
    // are taken from ours, its shape is checked.
    {"GET_ALL_TOPIC_CONFIG",
     request_code::get_all_topic_config,
     [topics](const remoting_command& req) {
       return topic_configs_response(req, topics);
     },
     bytes(
       "000001b8 01000029 "              // length 440; ROCKETMQ, header 41
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000014 "                       // extFields, 20 bytes
       "000d \"totalTopicNum\" 00000001 \"1\" ")
       + R"({"dataVersion":{"counter":1,"stateVersion":0,"timestamp":1795935358330},"mappingDataVersion":{"counter":0,"stateVersion":0,"timestamp":1795935358330},"topicConfigTable":{"TopicTest":{"attributes":{},"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"TopicTest","topicSysFlag":0,"writeQueueNums":4}},"topicQueueMappingDetailMap":{},"topicQueueMappingInfoMap":{}})",
     remark_match::exact,
     body_match::json_value,
     {"/mappingDataVersion/counter", "/mappingDataVersion/timestamp"}},
    // AdminBrokerProcessor.getAllSubscriptionGroup:
    // GetAllSubscriptionGroupResponseHeader (totalGroupNum) and
    // SubscriptionGroupWrapper (dataVersion, forbiddenTable,
    // subscriptionGroupTable), SubscriptionGroupConfig fields sorted, with
    // 5.x's groupRetryPolicy ({"type":"CUSTOMIZED"} by default) and
    // attributes.
    {"GET_ALL_SUBSCRIPTIONGROUP_CONFIG",
     request_code::get_all_subscriptiongroup_config,
     [groups](const remoting_command& req) {
       return sub_groups_response(req, groups);
     },
     bytes(
       "00000217 01000029 "              // length 535; ROCKETMQ, header 41
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000014 "                       // extFields, 20 bytes
       "000d \"totalGroupNum\" 00000001 \"1\" ")
       + R"({"dataVersion":{"counter":2,"stateVersion":0,"timestamp":1795935358330},"forbiddenTable":{},"subscriptionGroupTable":{"GID_GOLDEN":{"attributes":{},"brokerId":0,"consumeBroadcastEnable":true,"consumeEnable":true,"consumeFromMinEnable":true,"consumeMessageOrderly":false,"consumeTimeoutMinute":15,"groupName":"GID_GOLDEN","groupRetryPolicy":{"type":"CUSTOMIZED"},"groupSysFlag":0,"notifyConsumerIdsChangedEnable":true,"retryMaxTimes":16,"retryQueueNums":1,"whichBrokerWhenConsumeSlowly":1}}})"},
    // TopicStatsTable (offsetTable, topicPutTps): fastjson writes the
    // MessageQueue key as an object; TopicOffset fields sorted.
    // DIFFERS: RocketMQ 5.x adds "topicPutTps" (the topic's put rate from
    // its stats manager; ,"topicPutTps":0.0 for an idle topic) after the
    // offsetTable. Ours has none: our topic stats carry no put rate, and we
    // do not make one up. A Java reader then keeps the field's default,
    // 0.0 (newer mqadmin topicStatus prints it as "Topic Put TPS").
    {"GET_TOPIC_STATS_INFO", request_code::get_topic_stats_info,
     [stats](const remoting_command& req) {
       return with_body(req, topic_stats_body(stats));
     },
     bytes(
       "000000a9 01000015 "              // length 169; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + R"({"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"TopicTest"}:{"lastUpdateTimestamp":1795935527490,"maxOffset":1235,"minOffset":0}}})"},
    // ConsumeStats (consumeTps, offsetTable), OffsetWrapper (brokerOffset,
    // consumerOffset, lastTimestamp, pullOffset). RocketMQ's pullOffset is
    // the larger of the committed offset and where the group last pulled;
    // ours, with no separate pull offset, is the committed one, as
    // RocketMQ's is for a group that pulled no further than it committed.
    {"GET_CONSUME_STATS", request_code::get_consume_stats,
     [progress](const remoting_command& req) {
       return with_body(req, consume_stats_body(progress));
     },
     bytes(
       "000000d1 01000015 "              // length 209; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + R"({"consumeTps":1.5,"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"TopicTest"}:{"brokerOffset":1235,"consumerOffset":1200,"lastTimestamp":1795935527490,"pullOffset":1200}}})"},
    // KVTable: table, a HashMap.
    {"GET_BROKER_RUNTIME_INFO", request_code::get_broker_runtime_info,
     [info](const remoting_command& req) {
       return with_body(req, runtime_info_body(info));
     },
     bytes(
       "00000056 01000015 "              // length 86; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + R"({"table":{"msgPutTotalTodayNow":"17","putTps":"1.5 2.0 3.0"}})",
     remark_match::exact, body_match::json_value},
  };
}

std::vector<golden> route_goldens() {
  cluster_info clusters;
  clusters.broker_addr_table["broker-a"] = broker_a({{0, "127.0.0.1:10911"}});
  clusters.cluster_addr_table["DefaultCluster"] = {"broker-a"};
  auto route_answer = [](const remoting_command& req) {
    return with_body(req, to_json(remoting_view(route())).dump());
  };
  // ClientRequestProcessor.getRouteInfoByTopic for a client of 4.9.4 or
  // later: TopicRouteData with BrowserCompatible, QuoteFieldNames,
  // SkipTransientField and MapSortField (broker ids as quoted keys),
  // BrokerData and QueueData fields sorted, nulls left out.
  auto quoted_route
    = bytes(
        "00000135 01000015 "              // length 309; ROCKETMQ, header 21
        "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
        "00000000 "                       // no remark
        "00000000 ")                      // no extFields
      + R"({"brokerDatas":[{"brokerAddrs":{"0":"127.0.0.1:10911","1":"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]})";
  return {
    {"GET_ROUTEINFO_BY_TOPIC, version 479",
     request_code::get_routeinfo_by_topic, route_answer, quoted_route},
    // The same for an older client (ali-ons sends version 121). DIFFERS,
    // on purpose (docs/remoting.md "Routes"): RocketMQ writes fastjson's
    // default for these, the HashMap<Long, String> keys unquoted
    // ({0:"127.0.0.1:10911",1:"127.0.0.1:10921"}, 4 bytes shorter), which
    // is no JSON. Ours quotes them for every client: standard JSON, which
    // every client we know reads (fastjson, Go's parser, ali-ons'
    // JSON.parse), where the unquoted form breaks any strict parser.
    {"GET_ROUTEINFO_BY_TOPIC, version 121",
     request_code::get_routeinfo_by_topic, route_answer, quoted_route},
    // DefaultRequestProcessor.getBrokerClusterInfo: ClusterInfo
    // (brokerAddrTable, clusterAddrTable). DIFFERS, on purpose, as for the
    // route above: RocketMQ writes fastjson's default for every client,
    // the broker ids unquoted ({0:"127.0.0.1:10911"}, 2 bytes shorter);
    // ours are quoted, standard JSON.
    {"GET_BROKER_CLUSTER_INFO", request_code::get_broker_cluster_info,
     [clusters](const remoting_command& req) {
       return with_body(req, to_json(remoting_view(clusters)).dump());
     },
     bytes(
       "000000e2 01000015 "              // length 226; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + R"({"brokerAddrTable":{"broker-a":{"brokerAddrs":{"0":"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}},"clusterAddrTable":{"DefaultCluster":["broker-a"]}})"},
  };
}

std::vector<golden> namesrv_goldens() {
  broker_member_group group{
    "DefaultCluster", "broker-a", {{0, "127.0.0.1:10911"}}};
  return {
    // TopicList: topicList (a Set), brokerAddr when set, sorted.
    {"GET_ALL_TOPIC_LIST_FROM_NAMESERVER",
     request_code::get_all_topic_list_from_nameserver,
     [](const remoting_command& req) {
       return with_body(req, topic_list_json({"TopicTest"}).dump());
     },
     bytes(
       "00000034 01000015 "              // length 52; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + R"({"topicList":["TopicTest"]})"},
    // TopicList with the brokerAddr DefaultRequestProcessor sets.
    {"GET_SYSTEM_TOPIC_LIST_FROM_NS",
     request_code::get_system_topic_list_from_ns,
     [](const remoting_command& req) {
       return with_body(
         req, topic_list_json({"DefaultCluster"}, "127.0.0.1:10911").dump());
     },
     bytes(
       "00000058 01000015 "              // length 88; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + R"({"brokerAddr":"127.0.0.1:10911","topicList":["DefaultCluster"]})"},
    // KVTable: table.
    {"GET_KVLIST_BY_NAMESPACE", request_code::get_kvlist_by_namespace,
     [](const remoting_command& req) {
       return with_body(req,
                        kv_table_json({{"TopicTest", "broker-a:4"}}).dump());
     },
     bytes(
       "0000003d 01000015 "              // length 61; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + R"({"table":{"TopicTest":"broker-a:4"}})"},
    // Configuration.getAllConfigsFormatString: MixAll.properties2String
    // sorted by key, "key=value\n" each.
    {"GET_NAMESRV_CONFIG", request_code::get_namesrv_config,
     [](const remoting_command& req) {
       return with_body(req,
                        properties_text({{"listenPort", "9876"},
                                         {"rocketmqHome", "/opt/rocketmq"}}));
     },
     bytes("00000044 01000015 "              // length 68; header 21
           "0000 01 0191 00001267 00000001 " // SUCCESS, CPP, 401, RESPONSE
           "00000000 00000000 ")             // no remark, no extFields
       + "listenPort=9876\nrocketmqHome=/opt/rocketmq\n"},
    // DefaultRequestProcessor.getBrokerMemberGroup:
    // GetBrokerMemberGroupResponseBody (brokerMemberGroup: brokerAddrs,
    // brokerName, cluster). DIFFERS in two ways. RocketMQ writes
    // fastjson's default, the broker ids unquoted ({0:"127.0.0.1:10911"});
    // ours are quoted, standard JSON, as for routes (docs/remoting.md
    // "Routes"). And RocketMQ's answer keeps the remark
    // RemotingCommand.createResponseCommand(Class) puts on every answer it
    // makes, "not set any response code" (remark length 00000019), which
    // this processor never clears: a leftover that says nothing about a
    // SUCCESS, which no reader looks at; ours has no remark.
    {"GET_BROKER_MEMBER_GROUP", request_code::get_broker_member_group,
     [group](const remoting_command& req) {
       return with_body(req, to_json(group).dump());
     },
     bytes(
       "00000089 01000015 "              // length 137; ROCKETMQ, header 21
       "0000 01 0191 00001267 00000001 " // code 0, CPP, 401, opaque, RESPONSE
       "00000000 "                       // no remark
       "00000000 ")                      // no extFields
       + R"({"brokerMemberGroup":{"brokerAddrs":{"0":"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}})"},
  };
}

} // namespace

TEST_SUITE("runtime.remoting_golden_answers") {
  TEST_CASE("golden: SEND_MESSAGE answer, binary header") {
    for (auto& g : send_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: SEND_MESSAGE answer, JSON header") {
    for (auto& g : send_goldens())
      check_json(g);
  }

  TEST_CASE("golden: PULL_MESSAGE answer, binary header") {
    for (auto& g : pull_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: PULL_MESSAGE answer, JSON header") {
    for (auto& g : pull_goldens())
      check_json(g);
  }

  TEST_CASE("golden: offset answers (14, 29, 30, 31), binary header") {
    for (auto& g : offset_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: offset answers (14, 29, 30, 31), JSON header") {
    for (auto& g : offset_goldens())
      check_json(g);
  }

  TEST_CASE("golden: GET_CONSUMER_LIST_BY_GROUP answer, binary header") {
    for (auto& g : consumer_list_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: GET_CONSUMER_LIST_BY_GROUP answer, JSON header") {
    for (auto& g : consumer_list_goldens())
      check_json(g);
  }

  TEST_CASE("golden: GET_CONSUMER_CONNECTION_LIST answer, binary header") {
    for (auto& g : consumer_connection_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: GET_CONSUMER_CONNECTION_LIST answer, JSON header") {
    for (auto& g : consumer_connection_goldens())
      check_json(g);
  }

  TEST_CASE("golden: LOCK_BATCH_MQ answer, binary header") {
    for (auto& g : lock_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: LOCK_BATCH_MQ answer, JSON header") {
    for (auto& g : lock_goldens())
      check_json(g);
  }

  TEST_CASE("golden: VIEW_MESSAGE_BY_ID answer, binary header") {
    for (auto& g : view_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: VIEW_MESSAGE_BY_ID answer, JSON header") {
    for (auto& g : view_goldens())
      check_json(g);
  }

  TEST_CASE("golden: QUERY_MESSAGE answer, binary header") {
    for (auto& g : query_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: QUERY_MESSAGE answer, JSON header") {
    for (auto& g : query_goldens())
      check_json(g);
  }

  TEST_CASE("golden: error and plain answers, binary header") {
    for (auto& g : error_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: error and plain answers, JSON header") {
    for (auto& g : error_goldens())
      check_json(g);
  }

  TEST_CASE("golden: broker admin answers, binary header") {
    for (auto& g : admin_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: broker admin answers, JSON header") {
    for (auto& g : admin_goldens())
      check_json(g);
  }

  TEST_CASE("golden: NameServer route answers, binary header") {
    for (auto& g : route_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: NameServer route answers, JSON header") {
    for (auto& g : route_goldens())
      check_json(g);
  }

  TEST_CASE("golden: NameServer list and config answers, binary header") {
    for (auto& g : namesrv_goldens())
      check_binary(g);
  }

  TEST_CASE("golden: NameServer list and config answers, JSON header") {
    for (auto& g : namesrv_goldens())
      check_json(g);
  }
}
