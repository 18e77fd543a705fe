// Shared by the time-loop tests: a Williamson 2 problem at (Ne, p), and the message of the
// exadnn::Error a call throws ("" when it throws none).
#pragma once

#include <functional>
#include <string>

#include "climate/shallow_water.h"
#include "climate/williamson2.h"
#include "exadnn/core/error.h"

namespace climate::testing {

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const exadnn::Error& e) {
    return e.what();
  }
  return "";
}

struct W2Setup {
  W2Setup(int ne, int p) : mesh(ne, p), solver(mesh, tc.params()) {}
  Williamson2 tc;
  CubedSphere mesh;
  ShallowWater solver;
};

}  // namespace climate::testing
