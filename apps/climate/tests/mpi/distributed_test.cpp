// The solver over MPI ranks (run under mpirun -np N): Williamson 2 and Galewsky a few steps at
// small Ne, the fields gathered on rank 0 and compared with one process's run of the same steps
// (bit-identical: max |difference| = 0, printed), the same dt and mass; a NaN on one rank stops
// every rank naming the same element; more ranks than elements refused.
#include <gtest/gtest.h>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "climate/distributed.h"
#include "climate/galewsky.h"
#include "climate/simulation.h"
#include "climate/williamson2.h"
#include "exadnn/core/error.h"

namespace climate {
namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// `steps` RK4 steps of the initial state make_initial(solver) on every rank, and on rank 0 of
// one process; the largest |difference| of the gathered fields on rank 0 (0 elsewhere), and
// the dt and mass of both runs compared.
template <class Case>
double max_difference(const Case& tc, int ne, int p, VolumeForm form, int steps, const char* name) {
  const CubedSphere mesh(ne, p);
  ShallowWaterParams params = tc.params();
  params.volume = form;
  const DistributedShallowWater dist(mesh, params, MPI_COMM_WORLD);
  Simulation sim(dist, tc.state(dist.local()), 0.5);
  for (int k = 0; k < steps; ++k) sim.step();
  const SwState all = dist.gather(sim.state());
  const double mass = dist.mass(sim.state());
  if (dist.rank() != 0) return 0;
  const ShallowWater serial(mesh, params);
  Simulation ref(serial, tc.state(serial), 0.5);
  for (int k = 0; k < steps; ++k) ref.step();
  EXPECT_EQ(sim.dt(), ref.dt());
  EXPECT_EQ(sim.time(), ref.time());
  const double ref_mass = serial.mass(ref.state());
  EXPECT_NEAR(mass, ref_mass, 1e-14 * ref_mass);
  EXPECT_EQ(all.size(), ref.state().size());
  double diff = 0;
  for (std::size_t k = 0; k < all.size(); ++k)
    diff = std::max(diff, std::abs(all[k] - ref.state()[k]));
  std::printf(
      "%s, %s form, (Ne, p) = (%d, %d), %d steps on %d ranks: max |fields - one process's| "
      "= %.3g, mass difference %.3g relative\n",
      name, form == VolumeForm::split ? "split" : "divergence", ne, p, steps, dist.size(), diff,
      std::abs(mass - ref_mass) / ref_mass);
  return diff;
}

TEST(Distributed, Williamson2MatchesOneProcessBitForBit) {
  Williamson2 tc;
  tc.alpha = 0.7;  // across the cube's edges and corners
  for (const VolumeForm form : {VolumeForm::split, VolumeForm::divergence})
    EXPECT_EQ(max_difference(tc, 3, 3, form, 5, "Williamson 2"), 0.0);
}

TEST(Distributed, GalewskyMatchesOneProcessBitForBit) {
  for (const VolumeForm form : {VolumeForm::split, VolumeForm::divergence})
    EXPECT_EQ(max_difference(Galewsky(), 4, 4, form, 5, "Galewsky"), 0.0);
}

TEST(Distributed, NanOnOneRankStopsEveryRank) {
  const CubedSphere mesh(2, 2);
  const Williamson2 tc;
  const DistributedShallowWater dist(mesh, tc.params(), MPI_COMM_WORLD);
  Simulation sim(dist, tc.state(dist.local()), 0.5);
  sim.step();
  // The last rank's first element: a NaN in its h.
  const int bad = dist.partition().owned(dist.size() - 1).front();
  if (dist.rank() == dist.size() - 1) sim.state()[0] = std::numeric_limits<double>::quiet_NaN();
  std::string msg;
  try {
    sim.step();
  } catch (const exadnn::Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("not finite after step 2"), std::string::npos) << msg;
  // Within four stages the NaN reaches the neighbours; the smallest global index is named.
  EXPECT_NE(msg.find("in element "), std::string::npos) << msg;
  EXPECT_LE(std::stoi(msg.substr(msg.find("in element ") + 11)), bad) << msg;
}

TEST(Distributed, TooManyRanksRefused) {
  const CubedSphere mesh(1, 2);  // 6 elements
  std::string msg;
  try {
    const DistributedShallowWater dist(mesh, Williamson2().params(), MPI_COMM_WORLD);
  } catch (const exadnn::Error& e) {
    msg = e.what();
  }
  if (world_size() > 6)
    EXPECT_NE(msg.find("6 elements of the Ne = 1 cubed sphere over " +
                       std::to_string(world_size()) + " ranks"),
              std::string::npos)
        << "rank " << world_rank() << ": " << msg;
  else
    EXPECT_EQ(msg, "");
}

}  // namespace
}  // namespace climate
