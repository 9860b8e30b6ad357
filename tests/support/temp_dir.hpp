// A fresh folder under /tmp for one test, removed with everything in it.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

#include <stdlib.h>

#include <doctest/doctest.h>

namespace rmq::test {

class temp_dir {
public:
  /// Creates /tmp/<prefix>-XXXXXX.
  explicit temp_dir(const std::string& prefix = "rmq-test") {
    auto tmpl = "/tmp/" + prefix + "-XXXXXX";
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }

  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  const std::string& path() const {
    return path_;
  }

private:
  std::string path_;
};

} // namespace rmq::test
