#include "cbed/scattering_factor.h"

#include <exadnn/core/error.h>

#include <cmath>

#include "cbed/elements.h"
#include "scattering_tables.h"

namespace cbed {

namespace {
void check_element(int z, const char* where) {
  EXADNN_CHECK(z >= 1 && z <= kMaxAtomicNumber, where, "atomic number ", z,
               " has no scattering-factor parameters (known: 1..", kMaxAtomicNumber, ")");
}
}  // namespace

double kirkland_projected_potential(int z, double r) {
  check_element(z, "cbed::kirkland_projected_potential");
  const detail::KirklandRow& p = detail::kKirkland[z - 1];
  const double a0e = kBohrRadius * kCoulombVA;
  double v = 0;
  for (int i = 0; i < 3; ++i)
    v += 4 * M_PI * M_PI * a0e * p.a[i] * std::cyl_bessel_k(0.0, 2 * M_PI * r * std::sqrt(p.b[i])) +
         2 * M_PI * M_PI * a0e * p.c[i] / p.d[i] * std::exp(-M_PI * M_PI * r * r / p.d[i]);
  return v;
}

double electron_scattering_factor(int z, double g, ScatteringModel model) {
  check_element(z, "cbed::electron_scattering_factor");
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
