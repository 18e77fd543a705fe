#include "cbed/electron_optics.h"

#include <exadnn/core/error.h>

#include <cmath>

namespace cbed {

double electron_wavelength(double kilovolts) {
  EXADNN_CHECK(kilovolts > 0, "cbed::electron_wavelength", "beam energy ", kilovolts,
               " kV is not positive");
  const double ev = kilovolts * 1e3;
  return kPlanckTimesC / std::sqrt(ev * (2 * kElectronRestEnergy + ev));
}

double interaction_parameter(double kilovolts) {
  const double ev = kilovolts * 1e3;
  return 2 * M_PI / (electron_wavelength(kilovolts) * ev) * (kElectronRestEnergy + ev) /
         (2 * kElectronRestEnergy + ev);
}

}  // namespace cbed
