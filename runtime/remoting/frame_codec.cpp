#include "runtime/remoting/frame_codec.hpp"

#include "runtime/message/byte_coding.hpp"
#include "runtime/remoting/header_codec.hpp"

namespace rmq::remoting {

std::string encode_frame_head(const remoting_command& cmd) {
  auto header = cmd.serialization == serialize_type::json
                  ? encode_json_header(cmd)
                  : encode_binary_header(cmd);
  std::string out(8, '\0');
  put_be32(out.data(),
           static_cast<uint32_t>(4 + header.size() + cmd.body.size()));
  put_be32(out.data() + 4, (static_cast<uint32_t>(cmd.serialization) << 24)
                             | static_cast<uint32_t>(header.size() & 0xFFFFFF));
  out += header;
  return out;
}

std::string encode_frame(const remoting_command& cmd) {
  auto out = encode_frame_head(cmd);
  out += cmd.body;
  return out;
}

std::optional<remoting_command> decode_frame(std::string_view content,
                                             std::string& err) {
  if (content.size() < 4) {
    err = "frame of " + std::to_string(content.size())
          + " bytes has no header length";
    return std::nullopt;
  }
  auto mark = get_be32(content.data());
  auto type = mark >> 24;
  size_t header_len = mark & 0xFFFFFF;
  if (header_len > content.size() - 4) {
    err = "header length " + std::to_string(header_len) + " runs past the "
          + std::to_string(content.size()) + "-byte frame";
    return std::nullopt;
  }
  auto header = content.substr(4, header_len);
  remoting_command cmd;
  bool ok = false;
  if (type == static_cast<uint32_t>(serialize_type::json))
    ok = decode_json_header(header, cmd, err);
  else if (type == static_cast<uint32_t>(serialize_type::rocketmq))
    ok = decode_binary_header(header, cmd, err);
  else
    err = "unknown header serialization " + std::to_string(type);
  if (!ok)
    return std::nullopt;
  cmd.body = std::string{content.substr(4 + header_len)};
  return cmd;
}

void frame_reader::feed(std::string_view bytes) {
  if (failed())
    return;
  // Drop what was consumed before growing the buffer.
  if (pos_ > 0 && pos_ >= buf_.size() / 2) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(bytes.data(), bytes.size());
}

std::optional<remoting_command> frame_reader::next() {
  if (failed())
    return std::nullopt;
  if (want_ == 0) {
    if (buffered() < 4)
      return std::nullopt;
    size_t len = get_be32(buf_.data() + pos_);
    // Netty's LengthFieldBasedFrameDecoder counts the length field
    // against the limit too.
    if (len + 4 > max_frame_) {
      error_ = "frame of " + std::to_string(len + 4)
               + " bytes over the limit of " + std::to_string(max_frame_);
      return std::nullopt;
    }
    if (len < 4) {
      error_ = "frame length " + std::to_string(len)
               + " leaves no room for the header length";
      return std::nullopt;
    }
    pos_ += 4;
    want_ = len;
  }
  if (buffered() < want_)
    return std::nullopt;
  std::string err;
  auto cmd = decode_frame(std::string_view{buf_}.substr(pos_, want_), err);
  pos_ += want_;
  want_ = 0;
  if (!cmd)
    error_ = err;
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  return cmd;
}

} // namespace rmq::remoting
