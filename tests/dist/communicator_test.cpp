// Communicator collectives and point-to-point on every dtype, splits, host communicators, errors.
#include "exadnn/dist/communicator.h"

#include <thread>

#include "exadnn/dist/mpi_interop.h"
#include "testing.h"

namespace exadnn::dist {
namespace {

using exadnn::testing::values;

class CommunicatorTest : public ::testing::TestWithParam<DType> {
 protected:
  Communicator comm = Communicator::world();
};

TEST_P(CommunicatorTest, AllreduceSumMaxMin) {
  const DType dt = GetParam();
  const int r = comm.rank(), p = comm.size();
  Tensor t = full({3, 5}, r + 1, TensorOptions().dtype(dt));
  comm.allreduce(t).wait();
  for (double v : values(t)) EXPECT_EQ(v, p * (p + 1) / 2) << dtype_name(dt);
  Tensor hi = full({7}, r + 1, TensorOptions().dtype(dt));
  Tensor lo = full({7}, r + 1, TensorOptions().dtype(dt));
  Work a = comm.allreduce(hi, ReduceOp::max), b = comm.allreduce(lo, ReduceOp::min);
  b.wait();
  a.wait();
  for (double v : values(hi)) EXPECT_EQ(v, p);
  for (double v : values(lo)) EXPECT_EQ(v, 1);
}

TEST_P(CommunicatorTest, BroadcastAllgatherReduceScatterReduce) {
  const DType dt = GetParam();
  const int r = comm.rank(), p = comm.size();
  const auto opts = TensorOptions().dtype(dt);
  Tensor b = full({4}, r == p - 1 ? 7 : 0, opts);
  comm.broadcast(b, p - 1).wait();
  for (double v : values(b)) EXPECT_EQ(v, 7);

  Tensor mine = full({2}, r, opts);
  Tensor all = zeros({p, 2}, opts);
  comm.allgather(all, mine).wait();
  for (int q = 0; q < p; ++q)
    EXPECT_EQ(values(all[q]), (std::vector<double>{double(q), double(q)}));

  // Block q of rank r's input is q + r; rank r's output is the sum over ranks of block r.
  Tensor in = empty({p, 3}, opts);
  for (int q = 0; q < p; ++q) fill_(in[q], q + r);
  Tensor out = zeros({3}, opts);
  comm.reduce_scatter(out, in).wait();
  for (double v : values(out)) EXPECT_EQ(v, p * r + p * (p - 1) / 2);

  Tensor red = full({2}, r + 1, opts);
  comm.reduce(red, 0).wait();
  for (double v : values(red)) EXPECT_EQ(v, r == 0 ? p * (p + 1) / 2 : r + 1);
}

TEST_P(CommunicatorTest, SendRecvRing) {
  const DType dt = GetParam();
  const int r = comm.rank(), p = comm.size();
  Tensor out = full({5}, r, TensorOptions().dtype(dt));
  Tensor in = zeros({5}, TensorOptions().dtype(dt));
  Work rx = comm.recv(in, (r + p - 1) % p, 3);
  Work tx = comm.send(out, (r + 1) % p, 3);
  rx.wait();
  tx.wait();
  for (double v : values(in)) EXPECT_EQ(v, (r + p - 1) % p);
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, CommunicatorTest,
                         ::testing::Values(DType::f32, DType::f64, DType::f16, DType::bf16,
                                           DType::i32, DType::i64, DType::u8),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// Blocks of 64 KiB and more travel as direct messages (pairwise_reduce_scatter.h): the sums, two
// reduce-scatters in flight at once beside a point-to-point message of the same tag on the data
// duplicate, and a block sum that is the same on every rank as the rank-order sum.
TEST(Communicator, LargeReduceScattersAreExactAndKeepTheirOrder) {
  Communicator comm = Communicator::world();
  const int r = comm.rank(), p = comm.size();
  for (DType dt : {DType::f32, DType::f64}) {
    const int64_t n = (128 << 10) / static_cast<int64_t>(dtype_size(dt));  // 128 KiB blocks
    const auto opts = TensorOptions().dtype(dt);
    // Element i of block q on rank r: q + r + i (exact in f32 below 2^24).
    Tensor index = arange(0, static_cast<double>(n), 1, opts);
    Tensor first = empty({p, n}, opts), second = empty({p, n}, opts);
    for (int q = 0; q < p; ++q) {
      copy_(first[q], index + static_cast<double>(q + r));
      copy_(second[q], index * 2.0 - static_cast<double>(q));
    }
    Tensor a = zeros({n}, opts), b = zeros({n}, opts);
    Tensor token = full({1}, r, opts), got = zeros({1}, opts);
    Work rx = comm.recv(got, (r + p - 1) % p, 3), tx = comm.send(token, (r + 1) % p, 3);
    Work wa = comm.reduce_scatter(a, first), wb = comm.reduce_scatter(b, second);
    wb.wait();
    wa.wait();
    rx.wait();
    tx.wait();
    const auto va = values(a), vb = values(b);
    for (int64_t i = 0; i < n; i += 997) {
      EXPECT_EQ(va[i], p * (r + static_cast<double>(i)) + p * (p - 1) / 2.0) << i;
      EXPECT_EQ(vb[i], p * 2.0 * static_cast<double>(i) - p * r) << i;
    }
    EXPECT_EQ(values(got)[0], (r + p - 1) % p);
  }
  // Fractions whose sum depends on the order: every rank's block equals the rank-order sum.
  const int64_t n = 1 << 15;
  Generator gen(11);
  std::vector<Tensor> inputs;
  for (int q = 0; q < p; ++q) inputs.push_back(randn({p, n}, TensorOptions(), &gen));
  Tensor out = zeros({n});
  comm.reduce_scatter(out, inputs[r]).wait();
  Tensor want = inputs[0][r].clone();
  for (int q = 1; q < p; ++q) add_(want, inputs[q][r]);
  EXPECT_EQ(values(out), values(want));
}

TEST(Communicator, HalfSumsOfFractions) {
  Communicator comm = Communicator::world();
  const int r = comm.rank(), p = comm.size();
  for (DType dt : {DType::f16, DType::bf16}) {
    Tensor h = full({4}, r + 0.5, TensorOptions().dtype(dt));  // partial sums stay exact
    comm.allreduce(h).wait();
    for (double v : values(h)) EXPECT_EQ(v, p * p / 2.0) << dtype_name(dt);
  }
}

TEST(Communicator, BadArgumentsAreErrors) {
  Communicator comm = Communicator::world();
  Tensor strided = zeros({4, 4}).t();
  EXPECT_EXADNN_ERROR(comm.allreduce(strided), "allreduce", "not contiguous");
  EXPECT_EXADNN_ERROR(comm.broadcast(zeros({2}), comm.size()), "broadcast", "root");
  EXPECT_EXADNN_ERROR(comm.allgather(zeros({1}), zeros({2})), "allgather", "output must hold");
  EXPECT_EXADNN_ERROR(comm.allreduce(Tensor()), "undefined");
  EXPECT_EXADNN_ERROR(comm.allreduce(zeros({2}, TensorOptions().dtype(DType::boolean))),
                      "booleans");
}

TEST(Communicator, ShortMessageIsAnError) {
  Communicator comm = Communicator::world();
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  if (comm.rank() == 0) comm.send(zeros({3}), 1, 9).wait();
  if (comm.rank() == 1) EXPECT_EXADNN_ERROR(comm.recv(zeros({4}), 0, 9).wait(), "holds 3", "4");
}

TEST(Communicator, SplitMakesIndependentGroups) {
  Communicator comm = Communicator::world();
  Communicator half = comm.split(comm.rank() % 2, comm.rank());
  const int members = (comm.size() + (comm.rank() % 2 == 0 ? 1 : 0)) / 2;
  EXPECT_EQ(half.size(), members);
  Tensor t = ones({2});
  half.allreduce(t).wait();
  EXPECT_EQ(values(t), (std::vector<double>{double(members), double(members)}));
}

TEST(Communicator, WrapsTheApplicationsCommunicatorWithoutMixingTraffic) {
  MPI_Comm app = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &app);  // the application's own communicator
  Communicator comm = from_mpi(app);
  int app_rank = 0;
  MPI_Comm_rank(app, &app_rank);
  EXPECT_EQ(comm.rank(), app_rank);
  if (comm.size() >= 2) {
    // The application sends on its communicator with the same tag exadnn uses: exadnn's receive
    // must get exadnn's message, the application's receive the application's.
    if (comm.rank() == 0) {
      int app_value = 42;
      MPI_Send(&app_value, 1, MPI_INT, 1, 0, app);
      comm.send(full({1}, 7, TensorOptions().dtype(DType::i32)), 1, 0).wait();
    } else if (comm.rank() == 1) {
      Tensor got = zeros({1}, TensorOptions().dtype(DType::i32));
      comm.recv(got, 0, 0).wait();
      int app_value = 0;
      MPI_Recv(&app_value, 1, MPI_INT, 0, 0, app, MPI_STATUS_IGNORE);
      EXPECT_EQ(values(got)[0], 7);
      EXPECT_EQ(app_value, 42);
    }
  }
  MPI_Comm_free(&app);
}

TEST(Communicator, TimeoutNamesTheRankThatNeverArrived) {
  Communicator comm = Communicator::world().split(0, 0);  // its own timeout
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  comm.set_timeout(std::chrono::milliseconds(1000));
  const int late = comm.size() - 1;
  Tensor t = ones({3});
  if (comm.rank() == late) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3500));  // busy elsewhere, no answers
    comm.set_timeout(std::chrono::milliseconds(60'000));
    comm.allreduce(t).wait();
  } else {
    Work w = comm.allreduce(t);
    try {
      w.wait();
      ADD_FAILURE() << "expected a TimeoutError";
    } catch (const TimeoutError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("allreduce #"), std::string::npos) << m;
      EXPECT_NE(m.find("ranks that have not arrived: " + std::to_string(late) + " (no answer"),
                std::string::npos)
          << m;
      if (comm.size() > 2) EXPECT_NE(m.find("arrived: "), std::string::npos) << m;
    }
    comm.set_timeout(std::chrono::milliseconds(60'000));
    w.wait();  // the late rank arrives after all
  }
  EXPECT_EQ(values(t), (std::vector<double>(3, comm.size())));
}

}  // namespace
}  // namespace exadnn::dist
