// A fresh folder under /tmp for one test, removed with everything in it,
// and small helpers to read and write the files tests put there.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
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

/// Returns the whole content of `file` ("" if it cannot be read).
inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

/// Replaces the content of `file` with `text`.
inline void write_file(const std::filesystem::path& file,
                       const std::string& text) {
  std::ofstream out{file, std::ios::binary};
  out << text;
}

} // namespace rmq::test
