// Remoting frames on a byte stream (docs/remoting.md, "Frames"): a
// big-endian int32 length of what follows, the header's serialization and
// length in one int32, the header, the body. `frame_reader` cuts a stream
// into commands and refuses, before allocating anything for it, a frame
// over its limit (RocketMQ's frameMaxLength, 16 MiB by default) or a
// length that lies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/remoting/remoting_command.hpp"

namespace rmq::remoting {

/// RocketMQ's default com.rocketmq.remoting.frameMaxLength.
constexpr size_t default_max_frame = 16 * 1024 * 1024;

/// The frame of `cmd`, its header in `cmd.serialization`.
std::string encode_frame(const remoting_command& cmd);

/// The frame without its body: length, header length and header. A writer
/// that has a buffer of its own appends the body there itself.
std::string encode_frame_head(const remoting_command& cmd);

/// Decodes one frame's content (the bytes after the length field).
/// nullopt and `err` set when the header does not parse or its length
/// runs past the frame.
std::optional<remoting_command> decode_frame(std::string_view content,
                                             std::string& err);

/// Cuts a byte stream into commands. Feed it what a socket read, then
/// take commands until `next` answers nothing. After an error the stream
/// cannot be resynchronized: close the connection.
class frame_reader {
public:
  explicit frame_reader(size_t max_frame = default_max_frame)
    : max_frame_(max_frame) {
  }

  /// Appends bytes read off the connection.
  void feed(std::string_view bytes);

  /// The next whole command, if one is buffered; sets `failed()` on a
  /// bad frame.
  std::optional<remoting_command> next();

  bool failed() const {
    return !error_.empty();
  }

  /// Why the stream was refused.
  const std::string& error() const {
    return error_;
  }

  /// The frame length the reader waits for (after the 4-byte length), 0
  /// while it waits for a length: how much it is ready to buffer.
  size_t pending_frame() const {
    return want_;
  }

  /// Bytes buffered and not yet consumed.
  size_t buffered() const {
    return buf_.size() - pos_;
  }

private:
  size_t max_frame_;
  std::string buf_;
  size_t pos_ = 0;
  size_t want_ = 0;
  std::string error_;
};

} // namespace rmq::remoting
