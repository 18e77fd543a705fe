// climate_run on one process: one solver holding every element (run_ranks.h).
#include "run_ranks.h"

namespace climate {
namespace {

class SingleProcess final : public RunRanks {
 public:
  SingleProcess(const CubedSphere& mesh, const ShallowWaterParams& params)
      : solver_(mesh, params) {}

  int rank() const override { return 0; }
  int size() const override { return 1; }
  const ShallowWater& local() const override { return solver_; }
  std::unique_ptr<Simulation> simulation(SwState initial, double cfl) const override {
    return std::make_unique<Simulation>(solver_, std::move(initial), cfl);
  }
  SwState gather(const SwState& part) const override { return part; }
  SwState part_of(const SwState& whole) const override { return whole; }

 private:
  ShallowWater solver_;
};

}  // namespace

std::unique_ptr<RunRanks> single_process(const CubedSphere& mesh,
                                         const ShallowWaterParams& params) {
  return std::make_unique<SingleProcess>(mesh, params);
}

}  // namespace climate
