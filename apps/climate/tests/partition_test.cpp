// The partition of the elements over ranks (every element once, balanced, whole faces when the
// rank count divides 6, a Hilbert curve within a face, symmetric trace lists, too many ranks
// refused), and the solver on a partition: every rank's right-hand side, the traces handed over
// in memory as the MPI exchange would, equals one process's bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>

#include "climate/galewsky.h"
#include "climate/partition.h"
#include "climate/shallow_water.h"
#include "exadnn/core/error.h"

namespace climate {
namespace {

TEST(Partition, HilbertCurveVisitsEveryCellOnceInUnitSteps) {
  for (const int n : {1, 2, 4, 8, 16}) {
    std::set<std::pair<int, int>> seen;
    int px = 0, py = 0;
    for (long d = 0; d < static_cast<long>(n) * n; ++d) {
      int x, y;
      hilbert_cell(n, d, x, y);
      ASSERT_TRUE(x >= 0 && x < n && y >= 0 && y < n) << n << " " << d;
      seen.insert({x, y});
      if (d > 0) {
        EXPECT_EQ(std::abs(x - px) + std::abs(y - py), 1) << "n " << n << " step " << d;
      }
      px = x;
      py = y;
    }
    EXPECT_EQ(static_cast<long>(seen.size()), static_cast<long>(n) * n);
  }
}

TEST(Partition, EveryElementOnceBalancedAndContiguousAlongTheCurve) {
  for (const int ne : {1, 3, 4, 5})
    for (int ranks = 1; ranks <= std::min(13, 6 * ne * ne); ++ranks) {
      const CubedSphere mesh(ne, 1);
      const Partition part(mesh, ranks);
      const int n = mesh.num_elements();
      std::vector<int> count(n, 0);
      for (int r = 0; r < ranks; ++r) {
        const std::vector<int>& own = part.owned(r);
        EXPECT_TRUE(std::is_sorted(own.begin(), own.end()));
        EXPECT_GE(static_cast<int>(own.size()), n / ranks);
        EXPECT_LE(static_cast<int>(own.size()), (n + ranks - 1) / ranks);
        for (const int e : own) {
          ++count[e];
          EXPECT_EQ(part.owner(e), r);
        }
      }
      for (int e = 0; e < n; ++e) ASSERT_EQ(count[e], 1) << "Ne " << ne << ", element " << e;
      // Along the curve the owners never decrease: each rank's piece is one stretch of it.
      for (int k = 1; k < n; ++k)
        EXPECT_LE(part.owner(part.curve()[k - 1]), part.owner(part.curve()[k]));
    }
}

TEST(Partition, RankCountsDividingSixGetWholeFaces) {
  const CubedSphere mesh(3, 1);
  for (const int ranks : {1, 2, 3, 6}) {
    const Partition part(mesh, ranks);
    for (int e = 0; e < mesh.num_elements(); ++e)
      EXPECT_EQ(part.owner(e), mesh.face(e) * ranks / 6) << ranks << " ranks, element " << e;
  }
}

TEST(Partition, WithinAFaceTheCurveStepsToANeighbour) {
  const CubedSphere mesh(4, 1);  // a power of two: the true Hilbert curve
  const Partition part(mesh, 1);
  for (int k = 1; k < mesh.num_elements(); ++k) {
    const int a = part.curve()[k - 1], b = part.curve()[k];
    if (mesh.face(a) != mesh.face(b)) continue;
    bool adjacent = false;
    for (int edge = 0; edge < 4; ++edge) adjacent |= mesh.neighbour(a, edge).elem == b;
    EXPECT_TRUE(adjacent) << "elements " << a << " and " << b;
  }
}

TEST(Partition, TracesReceivedAreTheSendersTracesInTheSameOrder) {
  const CubedSphere mesh(3, 2);
  for (const int ranks : {2, 3, 5, 7}) {
    const Partition part(mesh, ranks);
    for (int r = 0; r < ranks; ++r) {
      const auto recv = part.receives(r);
      for (int s = 0; s < ranks; ++s) {
        std::vector<std::pair<int, int>> from_s, s_to_r;
        for (const auto& t : recv)
          if (t.peer == s) from_s.push_back({t.elem, t.edge});
        for (const auto& t : part.sends(s))
          if (t.peer == r) s_to_r.push_back({t.elem, t.edge});
        EXPECT_EQ(from_s, s_to_r) << ranks << " ranks: " << s << " → " << r;
        if (s == r) {
          EXPECT_TRUE(from_s.empty());
        }
      }
    }
  }
}

TEST(Partition, MoreRanksThanElementsRefused) {
  const CubedSphere mesh(1, 2);
  for (const int ranks : {0, 7, -1}) {
    try {
      Partition part(mesh, ranks);
      ADD_FAILURE() << ranks << " ranks accepted";
    } catch (const exadnn::Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("6 elements"), std::string::npos) << msg;
      EXPECT_NE(msg.find("over " + std::to_string(ranks) + " ranks"), std::string::npos) << msg;
    }
  }
}

// Every rank's rhs with the traces copied from the other ranks' pack_traces (what the MPI
// exchange does), compared with one process's.
double max_rhs_difference(int ne, int p, VolumeForm form, int ranks) {
  const CubedSphere mesh(ne, p);
  ShallowWaterParams params = Galewsky().params();
  params.volume = form;
  const ShallowWater whole(mesh, params);
  const SwState U = Galewsky().state(whole);
  SwState dU;
  whole.rhs(0, U, dU);
  const Partition part(mesh, ranks);
  const std::size_t per_elem = ShallowWater::kVars * mesh.nodes_per_element();
  std::vector<std::unique_ptr<ShallowWater>> rank_solver;
  std::vector<SwState> local(ranks), packed(ranks);
  for (int r = 0; r < ranks; ++r) {
    rank_solver.push_back(std::make_unique<ShallowWater>(mesh, params, part, r));
    const ShallowWater& s = *rank_solver[r];
    for (int e = 0; e < s.num_local_elements(); ++e)
      local[r].insert(local[r].end(), U.begin() + s.global_element(e) * per_elem,
                      U.begin() + (s.global_element(e) + 1) * per_elem);
    packed[r].resize(s.num_send_traces() * s.trace_values());
    s.pack_traces(local[r], packed[r].data());
  }
  double diff = 0;
  for (int r = 0; r < ranks; ++r) {
    const ShallowWater& s = *rank_solver[r];
    const std::size_t tv = s.trace_values();
    SwState traces;
    for (int src = 0; src < ranks; ++src) {
      const auto sends = part.sends(src);
      for (std::size_t k = 0; k < sends.size(); ++k)
        if (sends[k].peer == r)
          traces.insert(traces.end(), packed[src].begin() + k * tv,
                        packed[src].begin() + (k + 1) * tv);
    }
    EXPECT_EQ(traces.size(), s.num_recv_traces() * tv);
    SwState dl;
    s.volume_terms(local[r], dl);
    s.surface_terms(local[r], traces.empty() ? nullptr : traces.data(), dl);
    for (int e = 0; e < s.num_local_elements(); ++e)
      for (std::size_t k = 0; k < per_elem; ++k)
        diff =
            std::max(diff, std::abs(dl[e * per_elem + k] - dU[s.global_element(e) * per_elem + k]));
  }
  return diff;
}

TEST(PartitionedSolver, RanksGiveOneProcessRhsBitForBit) {
  for (const VolumeForm form : {VolumeForm::split, VolumeForm::divergence})
    for (const int ranks : {1, 2, 3, 5, 6, 7, 54})
      EXPECT_EQ(max_rhs_difference(3, 3, form, ranks), 0.0) << ranks << " ranks";
}

TEST(PartitionedSolver, MissingTracesRefused) {
  const CubedSphere mesh(2, 2);
  const Partition part(mesh, 2);
  const ShallowWater s(mesh, Galewsky().params(), part, 1);
  const SwState U = Galewsky().state(s);
  EXPECT_EQ(s.state_size(), U.size());
  SwState dU;
  s.volume_terms(U, dU);
  EXPECT_THROW(s.surface_terms(U, nullptr, dU), exadnn::Error);
  EXPECT_THROW(ShallowWater(mesh, Galewsky().params(), part, 2), exadnn::Error);
}

}  // namespace
}  // namespace climate
