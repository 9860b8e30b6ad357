// The rate meter counts per second of its clock, lazily.
#include "runtime/common/rate_meter.hpp"

#include <doctest/doctest.h>

using namespace std::chrono;
using rmq::rate_meter;

TEST_SUITE("runtime.rate_meter") {
  TEST_CASE("rates cover the finished seconds of the window") {
    rate_meter m;
    auto t0 = seconds{1000};
    for (int s = 0; s < 10; ++s)
      m.add(t0 + seconds{s}, 100);
    // Second 1009 is running: seconds 999..1008 hold 9 x 100.
    CHECK_EQ(m.rate(t0 + seconds{9} + milliseconds{500}, 10),
             doctest::Approx(90.0));
    CHECK_EQ(m.rate(t0 + seconds{10}, 10), doctest::Approx(100.0));
    CHECK_EQ(m.rate(t0 + seconds{10}, 60), doctest::Approx(1000.0 / 60));
    CHECK_EQ(m.total(), 1000);
  }

  TEST_CASE("old seconds drop out and a long pause clears everything") {
    rate_meter m;
    m.add(seconds{5}, 50);
    CHECK_EQ(m.rate(seconds{6}, 1), doctest::Approx(50.0));
    CHECK_EQ(m.rate(seconds{7}, 1), doctest::Approx(0.0));
    m.add(seconds{5000}, 7);
    CHECK_EQ(m.rate(seconds{5001}, 599), doctest::Approx(7.0 / 599));
    // The bucket of second 5 (same slot modulo 600 as 5 + 600k) was cleared.
    CHECK_EQ(m.rate(seconds{5601}, 599), doctest::Approx(0.0));
    CHECK_EQ(m.total(), 57);
  }
}
