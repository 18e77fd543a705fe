// The files of the PyTorch equivalence checks (bench/check_pytorch_equivalence.sh for ResNet-18,
// bench/wide_mlp_equivalence.py for the wide MLP): raw little-endian values, one file per array,
// and a state list DIR/state.txt ("name d0 d1 ..." per line, values in DIR/init/name.f64).
#pragma once

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "exadnn/exadnn.h"

namespace equivalence_io {

/// The whole file `path` as values of T; an Error unless it holds a whole number of them.
template <class T>
std::vector<T> read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXADNN_CHECK(f.good(), "equivalence", "cannot read ", path);
  const std::string bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  EXADNN_CHECK(bytes.size() % sizeof(T) == 0, "equivalence", path, " holds ", bytes.size(),
               " bytes, not whole values");
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

/// `path` as an f64 tensor of `shape` (its size must match).
inline exadnn::Tensor read_f64(const std::string& path, const exadnn::Shape& shape) {
  const std::vector<double> values = read<double>(path);
  EXADNN_CHECK(static_cast<int64_t>(values.size()) == shape.numel(), "equivalence", path, " holds ",
               values.size(), " values, not ", shape);
  return exadnn::from_vector<double>(values, shape);
}

/// t's values as f64 into `path` (its directory created).
inline void write_f64(const std::string& path, const exadnn::Tensor& t) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const std::vector<double> values = exadnn::to_vector<double>(t.detach().to(exadnn::DType::f64));
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(values.data()),
          static_cast<std::streamsize>(values.size() * sizeof(double)));
  EXADNN_CHECK(f.good(), "equivalence", "cannot write ", path);
}

/// PyTorch's state: each line of DIR/state.txt read from DIR/init/name.f64, as `dtype`.
inline exadnn::StateDict read_state(const std::string& dir,
                                    exadnn::DType dtype = exadnn::DType::f64) {
  std::ifstream list(dir + "/state.txt");
  EXADNN_CHECK(list.good(), "equivalence", "cannot read ", dir, "/state.txt");
  exadnn::StateDict state;
  for (std::string line; std::getline(list, line);) {
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    exadnn::Shape shape;
    for (int64_t d; fields >> d;) shape.push_back(d);
    state.insert(name, read_f64(dir + "/init/" + name + ".f64", shape).to(dtype));
  }
  return state;
}

/// Rows [first, first + count) of `all` ([N, ...] row-major) as a tensor of `shape`.
template <class T>
exadnn::Tensor rows(const std::vector<T>& all, int64_t first, int64_t count, int64_t row_size,
                    const exadnn::Shape& shape) {
  const auto begin = all.begin() + first * row_size;
  return exadnn::from_vector<T>(std::vector<T>(begin, begin + count * row_size), shape);
}

}  // namespace equivalence_io
