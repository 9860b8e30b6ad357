// The stall watch: when the frame a connection is in the middle of began.
#include "runtime/remoting/stall_watch.hpp"

#include <optional>
#include <string>

#include <doctest/doctest.h>

using namespace rmq::remoting;

TEST_SUITE("runtime.remoting_stall_watch") {
  TEST_CASE("a frame is timed from the read that began it") {
    auto frame = encode_frame([] {
      remoting_command c;
      c.code = 34;
      return c;
    }());
    frame_reader r;
    stall_watch<int> w;
    auto read = [&](const std::string& bytes, int now) {
      r.feed(bytes);
      size_t n = 0;
      while (r.next())
        ++n;
      w.after_read(r, n, now);
    };
    read(frame.substr(0, 2), 10); // inside the length
    CHECK_EQ(w.begun(), std::optional<int>{10});
    read(frame.substr(2, 6), 20); // inside the header
    CHECK_EQ(w.begun(), std::optional<int>{10});
    read(frame.substr(8), 30); // done
    CHECK_FALSE(w.begun());
    // A busy peer: each read ends one frame and begins the next, so the
    // watch restarts at every read.
    read(frame.substr(0, 5), 40);
    for (int now = 50; now < 100; now += 10) {
      read(frame.substr(5) + frame.substr(0, 5), now);
      CHECK_EQ(w.begun(), std::optional<int>{now});
    }
    read(frame.substr(5), 100);
    CHECK_FALSE(w.begun());
  }
}
