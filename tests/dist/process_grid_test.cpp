// ProcessGrid: the groups each axis forms, a combination of modes (tensor-parallel MLP inside data
// parallelism) against one process, and shapes that do not fit. Runs on 1, 2, 3 and 4 ranks.
#include "exadnn/dist/process_grid.h"

#include "dist_testing.h"
#include "exadnn/dist/data_parallel.h"
#include "exadnn/dist/tensor_parallel.h"

namespace exadnn::dist {
namespace {

using exadnn::testing::values;

TEST(ProcessGrid, AxesGroupTheRanksThatDifferInOneCoordinate) {
  Communicator world = Communicator::world();
  const int p = world.size();
  const int tensor = p % 2 == 0 ? 2 : 1;
  ProcessGrid grid(world, {p / tensor, 1, tensor});
  EXPECT_EQ(grid.tensor().size(), tensor);
  EXPECT_EQ(grid.data().size(), p / tensor);
  EXPECT_EQ(grid.pipeline().size(), 1);
  EXPECT_EQ(grid.tensor_rank(), world.rank() % tensor);
  EXPECT_EQ(grid.data_rank(), world.rank() / tensor);
  // The members of my tensor group: my data coordinate, every tensor coordinate.
  Tensor mine = from_vector<int32_t>({world.rank()});
  Tensor members = empty({tensor}, TensorOptions().dtype(DType::i32));
  grid.tensor().allgather(members, mine).wait();
  for (int t = 0; t < tensor; ++t)
    EXPECT_EQ(members.data<int32_t>()[t], grid.data_rank() * tensor + t);
}

TEST(ProcessGrid, TensorParallelInsideDataParallelTrainsLikeOneProcess) {
  Communicator world = Communicator::world();
  if (world.size() != 4) GTEST_SKIP() << "a 2 × 2 grid needs 4 ranks";
  ProcessGrid grid(world, {2, 1, 2});
  testing::FixedBatch b;
  manual_seed(9);
  nn::Sequential reference{std::make_shared<nn::Linear>(6, 8), std::make_shared<nn::ReLU>(),
                           std::make_shared<nn::Linear>(8, 3)};
  testing::train_on_fixed_batch(reference, 0, 12, 10);

  manual_seed(9);
  ParallelMLP model(6, 8, 3, grid.tensor());
  DataParallel ddp(model, grid.data());
  testing::train_on_fixed_batch(model, grid.data_rank() * 6, 6, 10);  // half the batch each
  auto& first = dynamic_cast<nn::Linear&>(*reference[0]);
  auto& second = dynamic_cast<nn::Linear&>(*reference[2]);
  const auto expect_close = [](const Tensor& got, const Tensor& want) {
    const auto g = values(got), w = values(want);
    for (size_t k = 0; k < w.size(); ++k) EXPECT_NEAR(g[k], w[k], 1e-5);
  };
  expect_close(model.up->full_weight(), first.weight.detach());
  expect_close(model.down->full_weight(), second.weight.detach());
  expect_close(model.down->bias.detach(), second.bias.detach());
}

TEST(ProcessGrid, ShapesThatDoNotFitAreErrorsOnEveryRank) {
  Communicator world = Communicator::world();
  EXPECT_THROW(ProcessGrid(world, {world.size() + 1, 1, 1}), Error);
  EXPECT_THROW(ProcessGrid(world, {world.size(), 0, 1}), Error);
  world.barrier().wait();
}

}  // namespace
}  // namespace exadnn::dist
