// When the frame a connection is in the middle of began: a peer that
// starts a frame and never finishes it holds a buffer for nothing, and is
// closed after a while. A busy peer whose frames straddle its reads is
// never mid-frame for long, since each finished frame restarts the watch.
// Time is whatever the caller's clock gives (the actor clock, or numbers
// in a test).
#pragma once

#include <cstddef>
#include <optional>

#include "runtime/remoting/frame_codec.hpp"

namespace rmq::remoting {

template <class TimePoint>
class stall_watch {
public:
  /// After a read at `now` from which `reader` decoded `decoded` frames.
  void after_read(const frame_reader& reader, size_t decoded, TimePoint now) {
    if (reader.buffered() == 0 && reader.pending_frame() == 0)
      begun_.reset();
    else if (decoded > 0 || !begun_)
      begun_ = now;
  }

  /// When the unfinished frame began; none between frames.
  const std::optional<TimePoint>& begun() const {
    return begun_;
  }

private:
  std::optional<TimePoint> begun_;
};

} // namespace rmq::remoting
