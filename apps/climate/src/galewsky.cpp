// The balance integral by Gauss–Legendre quadrature: tabulated once at 513 latitudes across the
// jet (5-point rule per panel), then from the nearest table entry to any φ; the 10 km mean as
// ½ ∫ h(φ) cos φ dφ by the same rule on 4096 panels.
#include "climate/galewsky.h"

#include <cmath>

#include "climate/spherical.h"

namespace climate {
namespace {

// ∫_a^b f by the 5-point Gauss–Legendre rule.
template <class F>
double gauss5(const F& f, double a, double b) {
  static const double x[5] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831,
                              0.9061798459386640};
  static const double w[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889,
                              0.4786286704993665, 0.2369268850561891};
  const double m = (a + b) / 2, r = (b - a) / 2;
  double s = 0;
  for (int i = 0; i < 5; ++i) s += w[i] * f(m + r * x[i]);
  return s * r;
}

}  // namespace

Galewsky::Galewsky(bool with_bump) : with_bump_(with_bump) {
  const auto integrand = [this](double phi) { return balance_integrand(phi); };
  table_.assign(kTable + 1, 0.0);
  const double d = (kPhi1 - kPhi0) / kTable;
  for (int i = 1; i <= kTable; ++i)
    table_[i] = table_[i - 1] + gauss5(integrand, kPhi0 + (i - 1) * d, kPhi0 + i * d);
  // h0 such that the mean of h over the sphere, ½ ∫ h cos φ dφ, is 10 km.
  const int panels = 4096;
  double mean = 0;
  for (int i = 0; i < panels; ++i) {
    const double a = -kPi / 2 + kPi * i / panels, b = a + kPi / panels;
    mean += gauss5([this](double phi) { return balanced_height(phi) * std::cos(phi); }, a, b);
  }
  h0_ = kMeanDepth - mean / 2;
}

double Galewsky::zonal_wind(double lat) const {
  if (lat <= kPhi0 || lat >= kPhi1) return 0;
  const double en = std::exp(-4 / ((kPhi1 - kPhi0) * (kPhi1 - kPhi0)));
  return kUmax / en * std::exp(1 / ((lat - kPhi0) * (lat - kPhi1)));
}

double Galewsky::balance_integral(double lat) const {
  if (lat <= kPhi0) return 0;
  if (lat >= kPhi1) return table_[kTable];
  const double d = (kPhi1 - kPhi0) / kTable;
  const int i = static_cast<int>((lat - kPhi0) / d);
  const double from = kPhi0 + i * d;
  return table_[i] + gauss5([this](double phi) { return balance_integrand(phi); }, from, lat);
}

double Galewsky::balance_integrand(double lat) const {
  const double u = zonal_wind(lat);
  return kEarthRadius * u * (2 * kEarthOmega * std::sin(lat) + std::tan(lat) * u / kEarthRadius);
}

double Galewsky::balanced_height(double lat) const {
  return h0_ - balance_integral(lat) / kGravity;
}

double Galewsky::bump(double lat, double lon) const {
  if (!with_bump_) return 0;
  return kBumpHeight * std::cos(lat) * std::exp(-(lon / kAlpha) * (lon / kAlpha)) *
         std::exp(-((kPhi2 - lat) / kBeta) * ((kPhi2 - lat) / kBeta));
}

double Galewsky::height(const Vec3& x) const {
  const LatLon p(x);
  return balanced_height(p.lat) + bump(p.lat, p.lon);
}

Vec3 Galewsky::velocity(const Vec3& x) const {
  const LatLon p(x);
  return p.tangent(zonal_wind(p.lat), 0.0);
}

SwState Galewsky::state(const ShallowWater& solver) const {
  return solver.make_state([this](const Vec3& x, double& h, Vec3& u) {
    h = height(x);
    u = velocity(x);
  });
}

}  // namespace climate
