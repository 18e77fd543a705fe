// The distributed right-hand side and the collectives of a distributed run.
#include "climate/distributed.h"

#include <algorithm>

#include "exadnn/core/error.h"

namespace climate {

namespace {

int comm_size(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

}  // namespace

DistributedShallowWater::DistributedShallowWater(const CubedSphere& mesh, ShallowWaterParams params,
                                                 MPI_Comm comm)
    : partition_(mesh, comm_size(comm)) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  local_ = std::make_unique<ShallowWater>(mesh, params, partition_, rank_);
  exchange_ = std::make_unique<TraceExchange>(*local_, partition_, rank_, comm_);
}

DistributedShallowWater::~DistributedShallowWater() {
  exchange_.reset();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void DistributedShallowWater::rhs(double /*t*/, const SwState& U, SwState& dU) const {
  exchange_->start(U);
  local_->volume_terms(U, dU);
  const double* traces = exchange_->finish();
  local_->surface_terms(U, traces, dU);
}

double DistributedShallowWater::min_over_ranks(double v) const {
  double out = v;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MIN, comm_);
  return out;
}

long DistributedShallowWater::min_over_ranks(long v) const {
  long out = v;
  MPI_Allreduce(&v, &out, 1, MPI_LONG, MPI_MIN, comm_);
  return out;
}

double DistributedShallowWater::mass(const SwState& U) const {
  // Every rank's sum gathered and added in rank order: the same figure on every rank.
  const double mine = local_->mass(U);
  std::vector<double> all(size());
  MPI_Allgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm_);
  double total = 0;
  for (const double m : all) total += m;
  return total;
}

SwState DistributedShallowWater::gather(const SwState& U, int root) const {
  EXADNN_CHECK(U.size() == local_->state_size(), "DistributedShallowWater", "rank ", rank_,
               ": a state of ", local_->state_size(), " values expected, got ", U.size());
  const std::size_t per_elem = ShallowWater::kVars * local_->mesh().nodes_per_element();
  std::vector<int> counts(size()), displs(size());
  for (int r = 0, at = 0; r < size(); ++r) {
    counts[r] = static_cast<int>(partition_.owned(r).size() * per_elem);
    displs[r] = at;
    at += counts[r];
  }
  SwState packed(rank_ == root ? local_->mesh().num_elements() * per_elem : 0);
  MPI_Gatherv(U.data(), static_cast<int>(U.size()), MPI_DOUBLE, packed.data(), counts.data(),
              displs.data(), MPI_DOUBLE, root, comm_);
  if (rank_ != root) return {};
  // Rank by rank, each rank's elements in ascending order, into global order.
  SwState whole(packed.size());
  const double* src = packed.data();
  for (int r = 0; r < size(); ++r)
    for (const int e : partition_.owned(r)) {
      std::copy(src, src + per_elem, whole.data() + e * per_elem);
      src += per_elem;
    }
  return whole;
}

SwState DistributedShallowWater::scatter_local(const SwState& whole) const {
  const std::size_t per_elem = ShallowWater::kVars * local_->mesh().nodes_per_element();
  EXADNN_CHECK(whole.size() == local_->mesh().num_elements() * per_elem, "DistributedShallowWater",
               "a whole state of ", local_->mesh().num_elements() * per_elem,
               " values expected, got ", whole.size());
  SwState mine(local_->state_size());
  for (int e = 0; e < local_->num_local_elements(); ++e) {
    const double* src = whole.data() + local_->global_element(e) * per_elem;
    std::copy(src, src + per_elem, mine.data() + e * per_elem);
  }
  return mine;
}

}  // namespace climate
