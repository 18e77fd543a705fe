// The published parameter tables behind electron_scattering_factor (one row per element, Z
// = 1..103, row z - 1). Sources and formulas are in the two table files and in
// cbed/scattering_factor.h.
#pragma once

namespace cbed::detail {

/// Lobato and Van Dyck (2014): f(g) = sum_i a[i] (2 + b[i] g^2) / (1 + b[i] g^2)^2.
struct LobatoRow {
  double a[5];
  double b[5];
};
/// Kirkland (2010): f(q) = sum_i a[i] / (q^2 + b[i]) + c[i] exp(-d[i] q^2).
struct KirklandRow {
  double a[3];
  double b[3];
  double c[3];
  double d[3];
};

extern const LobatoRow kLobato[103];
extern const KirklandRow kKirkland[103];

}  // namespace cbed::detail
