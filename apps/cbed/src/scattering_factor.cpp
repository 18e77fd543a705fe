#include "cbed/scattering_factor.h"

#include <exadnn/core/error.h>

#include <cmath>

#include "cbed/elements.h"
#include "scattering_tables.h"

namespace cbed {

double electron_scattering_factor(int z, double g, ScatteringModel model) {
  EXADNN_CHECK(z >= 1 && z <= kMaxAtomicNumber, "cbed::electron_scattering_factor",
               "atomic number ", z, " has no scattering-factor parameters (known: 1..",
               kMaxAtomicNumber, ")");
  const double g2 = g * g;
  double f = 0;
  if (model == ScatteringModel::lobato) {
    const detail::LobatoRow& p = detail::kLobato[z - 1];
    for (int i = 0; i < 5; ++i) {
      const double t = 1 + p.b[i] * g2;
      f += p.a[i] * (2 + p.b[i] * g2) / (t * t);
    }
  } else {
    const detail::KirklandRow& p = detail::kKirkland[z - 1];
    for (int i = 0; i < 3; ++i) f += p.a[i] / (g2 + p.b[i]) + p.c[i] * std::exp(-p.d[i] * g2);
  }
  return f;
}

}  // namespace cbed
