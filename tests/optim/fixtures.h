// Reader of the PyTorch reference files in tests/optim/fixtures/ (written by make_fixtures.py;
// the format is described there). Located next to this header through __FILE__.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "exadnn/exadnn.h"

namespace exadnn::testing::optim_fixtures {

/// One configuration and the values PyTorch produced for it.
struct Case {
  std::string name;
  std::map<std::string, std::string> options;                // key=value from the case line
  std::map<std::pair<int, int>, std::vector<double>> after;  // (step, param) -> values
  std::vector<double> lrs;                                   // schedulers
  double norm = 0.0;                                         // clipping
  std::map<int, std::vector<double>> clipped;                // clipping: param -> grad

  bool has(const std::string& key) const { return options.count(key) != 0; }
  double num(const std::string& key, double fallback = 0.0) const {
    auto it = options.find(key);
    return it == options.end() ? fallback : std::stod(it->second);
  }
  std::string str(const std::string& key) const {
    auto it = options.find(key);
    return it == options.end() ? std::string() : it->second;
  }
};

/// The inputs shared by the cases of one file, and the cases.
struct Fixture {
  std::vector<Shape> shapes;
  std::vector<std::vector<double>> params;
  std::map<std::pair<int, int>, std::optional<std::vector<double>>> grads;  // (step, param)
  std::vector<Case> cases;
};

inline std::filesystem::path fixture_dir() {
  return std::filesystem::path(__FILE__).parent_path() / "fixtures";
}

// Values after the ':' of a line (or nullopt for "none").
inline std::optional<std::vector<double>> values_after_colon(std::istringstream& in) {
  std::string token;
  in >> token;  // ':'
  std::vector<double> out;
  while (in >> token) {
    if (token == "none") return std::nullopt;
    out.push_back(std::stod(token));
  }
  return out;
}

/// Parses tests/optim/fixtures/<file>; throws std::runtime_error if it cannot be read.
inline Fixture load_fixture(const std::string& file) {
  const std::filesystem::path path = fixture_dir() / file;
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read fixture " + path.string());
  Fixture fx;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string kind;
    in >> kind;
    if (kind == "param") {
      size_t i;
      std::string word, tok;
      in >> i >> word;
      Shape shape;
      while (in >> tok && tok != ":") shape.push_back(std::stoll(tok));
      std::vector<double> v;
      while (in >> tok) v.push_back(std::stod(tok));
      fx.shapes.resize(std::max(fx.shapes.size(), i + 1));
      fx.params.resize(std::max(fx.params.size(), i + 1));
      fx.shapes[i] = shape;
      fx.params[i] = v;
    } else if (kind == "grad") {
      int step, i;
      in >> step >> i;
      fx.grads[{step, i}] = values_after_colon(in);
    } else if (kind == "case") {
      Case c;
      in >> c.name;
      std::string kv;
      while (in >> kv) {
        const size_t eq = kv.find('=');
        c.options[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
      fx.cases.push_back(std::move(c));
    } else if (kind == "after") {
      int step, i;
      in >> step >> i;
      fx.cases.back().after[{step, i}] = *values_after_colon(in);
    } else if (kind == "lrs") {
      fx.cases.back().lrs = *values_after_colon(in);
    } else if (kind == "norm") {
      fx.cases.back().norm = (*values_after_colon(in)).at(0);
    } else if (kind == "clipped") {
      int i;
      in >> i;
      fx.cases.back().clipped[i] = *values_after_colon(in);
    }
  }
  return fx;
}

/// "f32" / "f64" -> DType.
inline DType dtype_of(const Case& c) {
  return c.str("dtype") == "f32" ? DType::f32 : DType::f64;
}

}  // namespace exadnn::testing::optim_fixtures
