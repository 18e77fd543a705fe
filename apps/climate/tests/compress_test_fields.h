// Fields the compression tests work on: Galewsky's initial state (with the bump) on a small mesh,
// as FaceFields of h and the zonal and meridional wind.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "climate/compress_fields.h"
#include "climate/galewsky.h"
#include "exadnn/core/error.h"

namespace climate::testing {

struct GalewskyFields {
  FaceField h, u, v;
};

/// Galewsky's initial h, u, v at (Ne, p) (face size Ne (p+1)).
inline GalewskyFields galewsky_fields(int ne, int p) {
  const CubedSphere mesh(ne, p);
  const Galewsky tc(true);
  const ShallowWater solver(mesh, tc.params());
  const SwState U = tc.state(solver);
  GalewskyFields out;
  out.h = gather_face_field(solver, U, 0);
  velocity_face_fields(solver, U, out.u, out.v);
  return out;
}

/// galewsky_fields(ne, p), made on the first call for that (ne, p) and kept.
inline const GalewskyFields& galewsky_fields_once(int ne, int p) {
  static std::map<std::pair<int, int>, GalewskyFields> made;
  auto it = made.find({ne, p});
  if (it == made.end()) it = made.emplace(std::make_pair(ne, p), galewsky_fields(ne, p)).first;
  return it->second;
}

/// Field c's RMSE over the steps [from, end) of `truth`, against `approx` (one Fields per step).
inline double steps_rmse(const std::vector<std::vector<FaceField>>& approx,
                         const std::vector<std::vector<FaceField>>& truth, int c, size_t from) {
  double sq = 0, count = 0;
  for (size_t k = from; k < truth.size(); ++k)
    for (size_t i = 0; i < truth[k][c].data.size(); ++i) {
      const double d = approx[k][c].data[i] - truth[k][c].data[i];
      sq += d * d;
      ++count;
    }
  return std::sqrt(sq / count);
}

/// Expects call() to throw an exadnn::Error whose message holds every one of `parts`.
template <class Call>
void expect_error(Call call, std::initializer_list<const char*> parts) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one naming " << *parts.begin();
  } catch (const exadnn::Error& e) {
    for (const char* part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "'" << e.what() << "' lacks '" << part << "'";
  }
}

}  // namespace climate::testing
