// A fresh folder per test under the system temp dir, named after the process, the test suite and
// the test, and removed when the test ends.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace exadnn::testing {

class ScratchDir {
 public:
  /// `prefix` tells the layers' tests apart ("exadnn_io_", "exadnn_data_").
  explicit ScratchDir(const std::string& prefix = "exadnn_test_") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = prefix + std::to_string(::getpid()) + "_" +
                       (info ? std::string(info->test_suite_name()) + "_" + info->name() : "x");
    for (char& c : name)
      if (c == '/') c = '_';  // parameterised tests: "Suite/Test/param"
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  /// The path of `name` inside the folder.
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace exadnn::testing
