// COMMLIB tuple space at 2, 3 and 4 ranks (1, 1 and 2 server ranks): concurrent producers and
// consumers, read/get/try semantics, patterns, values, and the errors of misuse.
#include "exadnn/flow/tuple_space.h"

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>

#include "exadnn/dist/mpi_interop.h"
#include "exadnn/ops/factories.h"
#include "testing.h"

namespace exadnn::flow {
namespace {

using exadnn::testing::values;

// Servers: the last rank, and the one before it too at 4 ranks (so sharding is exercised);
// clients: the others. Each test serves a fresh space and shuts it down at its end.
class TupleSpaceTest : public ::testing::Test {
 protected:
  dist::Communicator comm = dist::from_mpi(MPI_COMM_WORLD);
  int rank = comm.rank();
  int size = comm.size();
  TupleSpaceLayout layout{size >= 4 ? std::vector<int>{size - 2, size - 1}
                                    : std::vector<int>{size - 1}};
  bool is_server = rank >= size - static_cast<int>(layout.server_ranks.size());
  int client_count = size - static_cast<int>(layout.server_ranks.size());
  // The client ranks among themselves (collective over all ranks to make).
  dist::Communicator clients = comm.split(is_server ? 1 : 0, rank);

  // Servers serve; clients run `body`, wait for each other, and client 0 shuts the space down.
  void run(const std::function<void(TupleSpace&)>& body) {
    if (is_server) {
      serve_tuple_space(comm, layout);
    } else {
      TupleSpace ts(comm, layout);
      body(ts);
      clients.barrier().wait();
      if (rank == 0) ts.shutdown_servers();
    }
    comm.barrier().wait();
  }
};

// Value of a one-element tensor.
double scalar(const Tuple& t) {
  return values(t.tensor())[0];
}

// 3 producer and 3 consumer threads spread over the client ranks; 10 000 tuples under distinct
// keys "item/<n>", taken with the pattern "item/*": every tuple arrives exactly once.
TEST_F(TupleSpaceTest, ThreeProducersThreeConsumersDeliverEachTupleOnce) {
  constexpr int kTuples = 10'000;
  std::vector<int> seen(kTuples, 0);  // per rank: how often each tuple was taken here
  double local_sum = 0;
  int64_t local_count = 0;
  run([&](TupleSpace& ts) {
    std::mutex mutex;
    std::vector<std::thread> threads;
    const int client = rank;  // clients are ranks 0 .. client_count - 1
    for (int role = 0; role < 6; ++role) {
      if (role % client_count != client) continue;
      if (role < 3) {
        threads.emplace_back([&ts, role] {
          for (int n = role; n < kTuples; n += 3)
            ts.put("item/" + std::to_string(n), full({1}, n, DType::i64));
        });
      } else {
        const int consumer = role - 3;
        const int quota = kTuples / 3 + (consumer < kTuples % 3 ? 1 : 0);
        threads.emplace_back([&, quota] {
          for (int k = 0; k < quota; ++k) {
            Tuple t = ts.get("item/*");
            const auto n = static_cast<int>(scalar(t));
            std::lock_guard lock(mutex);
            EXPECT_EQ(t.key, "item/" + std::to_string(n));
            ++seen[static_cast<size_t>(n)];
            local_sum += n;
            ++local_count;
          }
        });
      }
    }
    for (std::thread& t : threads) t.join();
    clients.barrier().wait();
    EXPECT_FALSE(ts.try_get("item/*").has_value());
  });
  if (is_server) return;
  Tensor counts = from_vector<int32_t>(seen);
  clients.allreduce(counts).wait();
  int64_t wrong = 0;
  for (double c : values(counts)) wrong += c != 1;
  EXPECT_EQ(wrong, 0) << "tuples taken zero or several times";
  Tensor totals = from_vector<double>({local_sum, double(local_count)});
  clients.allreduce(totals).wait();
  EXPECT_EQ(values(totals), (std::vector<double>{kTuples * (kTuples - 1) / 2.0, kTuples}));
}

// Consumers on every client rank take tuples of ONE key (server-side waiting queue) while
// producers add them: no tuple is handed to two consumers.
TEST_F(TupleSpaceTest, ConcurrentConsumersOfOneKeyNeverShareATuple) {
  constexpr int kPerProducer = 600;
  const int producers = 3, total = producers * kPerProducer;
  std::vector<int> seen(static_cast<size_t>(total), 0);
  run([&](TupleSpace& ts) {
    std::mutex mutex;
    std::vector<std::thread> threads;
    for (int role = 0; role < 6; ++role) {
      if (role % client_count != rank) continue;
      if (role < 3) {
        threads.emplace_back([&ts, role] {
          for (int k = 0; k < kPerProducer; ++k)
            ts.put("job", full({1}, role * kPerProducer + k, DType::i32));
        });
      } else {
        threads.emplace_back([&] {
          for (int k = 0; k < kPerProducer; ++k) {
            const auto id = static_cast<size_t>(scalar(ts.get("job")));
            std::lock_guard lock(mutex);
            ++seen[id];
          }
        });
      }
    }
    for (std::thread& t : threads) t.join();
  });
  if (is_server) return;
  Tensor counts = from_vector<int32_t>(seen);
  clients.allreduce(counts).wait();
  for (double c : values(counts)) ASSERT_EQ(c, 1);
}

TEST_F(TupleSpaceTest, ReadKeepsGetRemovesTryOnEmptyIsNullopt) {
  run([&](TupleSpace& ts) {
    const std::string k = "c" + std::to_string(rank) + "/x";
    EXPECT_FALSE(ts.try_get(k).has_value());
    EXPECT_FALSE(ts.try_read(k).has_value());
    EXPECT_FALSE(ts.try_get("c" + std::to_string(rank) + "/*").has_value());
    ts.put(k, full({2}, 1.5, DType::f32));
    EXPECT_EQ(values(ts.read(k).tensor()), (std::vector<double>{1.5, 1.5}));
    EXPECT_EQ(values(ts.read(k).tensor()), (std::vector<double>{1.5, 1.5}));
    ASSERT_TRUE(ts.try_read(k).has_value());
    Tuple got = ts.get(k);
    EXPECT_EQ(got.key, k);
    EXPECT_FALSE(ts.try_get(k).has_value());
    EXPECT_FALSE(ts.try_read(k).has_value());
    // Several tuples under one key come back oldest first.
    for (int v = 1; v <= 3; ++v) ts.put(k, full({1}, v, DType::i64));
    for (int v = 1; v <= 3; ++v) EXPECT_EQ(scalar(ts.get(k)), v);
    EXPECT_FALSE(ts.try_get(k).has_value());
  });
}

TEST_F(TupleSpaceTest, PrefixAndWildcardPatterns) {
  EXPECT_TRUE(key_matches("result/*", "result/a"));
  EXPECT_TRUE(key_matches("result/*", "result/"));
  EXPECT_FALSE(key_matches("result/*", "results/a"));
  EXPECT_TRUE(key_matches("run?/loss", "run1/loss"));
  EXPECT_FALSE(key_matches("run?/loss", "run10/loss"));
  EXPECT_TRUE(key_matches("*/loss", "run10/loss"));
  EXPECT_TRUE(key_matches("a*b*c", "a--b--b--c"));
  EXPECT_FALSE(key_matches("a*b*c", "a--b--b--d"));
  EXPECT_TRUE(key_matches("exact", "exact"));
  EXPECT_FALSE(is_pattern("result/a"));
  EXPECT_TRUE(is_pattern("run?/loss"));
  run([&](TupleSpace& ts) {
    const std::string p = "c" + std::to_string(rank) + "/";
    for (const char* key :
         {"result/b", "result/a", "run1/loss", "run2/loss", "run10/loss", "other"})
      ts.put(p + key, std::string_view(key));
    EXPECT_EQ(ts.read(p + "result/*").text().substr(0, 7), "result/");
    std::vector<std::string> runs = {ts.get(p + "run?/loss").key, ts.get(p + "run?/loss").key};
    std::sort(runs.begin(), runs.end());
    EXPECT_EQ(runs, (std::vector<std::string>{p + "run1/loss", p + "run2/loss"}));
    EXPECT_FALSE(ts.try_get(p + "run?/loss").has_value());
    EXPECT_EQ(ts.get(p + "*/loss").text(), "run10/loss");
    EXPECT_EQ(ts.get(p + "result/*").text().substr(0, 7), "result/");
    EXPECT_EQ(ts.get(p + "result/*").text().substr(0, 7), "result/");
    EXPECT_FALSE(ts.try_read(p + "result/*").has_value());
    EXPECT_EQ(ts.get(p + "*").text(), "other");
    // A blocking pattern get that waits for a later put (from another thread of this rank).
    std::thread late([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      ts.put(p + "late/7", full({1}, 7, DType::f64));
    });
    EXPECT_EQ(scalar(ts.get(p + "late/*")), 7);
    late.join();
  });
}

TEST_F(TupleSpaceTest, TensorsOfEveryDTypeAndBytesRoundTrip) {
  run([&](TupleSpace& ts) {
    const std::string p = "c" + std::to_string(rank) + "/";
    const std::vector<DType> dtypes = {DType::f32, DType::f64, DType::f16, DType::bf16,
                                       DType::i32, DType::i64, DType::u8,  DType::boolean};
    for (DType dt : dtypes) {
      Tensor t = arange(int64_t{24}, DType::f64).to(dt).reshape({2, 3, 4});
      ts.put(p + dtype_name(dt), t.permute({2, 0, 1}));  // strided: stored packed
      Tuple got = ts.get(p + dtype_name(dt));
      EXPECT_EQ(got.tensor().dtype(), dt);
      EXPECT_EQ(got.tensor().shape(), Shape({4, 2, 3}));
      EXPECT_EQ(values(got.tensor()), values(t.permute({2, 0, 1}))) << dtype_name(dt);
    }
    const Bytes raw = {std::byte{0}, std::byte{255}, std::byte{7}};
    ts.put(p + "raw", std::span<const std::byte>(raw));
    Tuple got = ts.get(p + "raw");
    EXPECT_FALSE(got.is_tensor());
    EXPECT_EQ(got.bytes(), raw);
    EXPECT_THROW(got.tensor(), Error);
    ts.put(p + "big", zeros({300, 1000}, DType::f32));  // 1.2 MB in one request
    EXPECT_EQ(ts.get(p + "big").tensor().numel(), 300'000);
  });
}

// Once no rank but the waiting one may put (set_producers), a get or read that matches nothing
// ends with NoProducerError, whether it was already blocked or comes later, on one shard or
// polling two; stored tuples are still taken, and try_ forms still just say "none".
TEST_F(TupleSpaceTest, WaitsEndOnceNoOtherRankMayPut) {
  run([&](TupleSpace& ts) {
    const int waiter = client_count - 1;  // rank 0 itself when it is the only client
    if (rank == 0) ts.put("kept/1", std::string_view("here"));
    clients.barrier().wait();
    if (rank == 0 && waiter != 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the waiter blocks first
      ts.set_producers(std::vector<int>{waiter, waiter});
    }
    if (rank == waiter) {
      if (waiter == 0) ts.set_producers(std::vector<int>{});
      try {
        ts.get("missing");
        ADD_FAILURE() << "get with no producer left did not throw";
      } catch (const NoProducerError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("get of 'missing'"), std::string::npos) << what;
        EXPECT_NE(what.find("no producer is left"), std::string::npos) << what;
      }
      EXPECT_THROW(ts.read("missing/*"), NoProducerError);  // polls both shards at 4 ranks
      EXPECT_EQ(ts.get("kept/*").text(), "here");
      EXPECT_FALSE(ts.try_get("missing").has_value());
      ts.put("late", std::string_view("mine"));
      EXPECT_EQ(ts.read("late").text(), "mine");
      EXPECT_EQ(ts.get("l?te").text(), "mine");
    }
    clients.barrier().wait();
    if (rank == 0) ts.set_producers(std::nullopt);  // any rank again: waits are unbounded
    if (rank == 0) ts.put("after", std::string_view("x"));
    clients.barrier().wait();
    if (rank == waiter) {
      EXPECT_EQ(ts.get("after").text(), "x");
    }
  });
}

TEST_F(TupleSpaceTest, MisuseIsAClearError) {
  if (is_server) {
    try {
      TupleSpace ts(comm, layout);
      ADD_FAILURE() << "a server rank became a client";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is a server of the tuple space"), std::string::npos);
    }
  } else {
    EXPECT_THROW(serve_tuple_space(comm, layout), Error);
    EXPECT_THROW(TupleSpace(comm, TupleSpaceLayout{}), Error);
    EXPECT_THROW(TupleSpace(comm, TupleSpaceLayout{{size}}), Error);
  }
  if (is_server) {
    serve_tuple_space(comm, layout);
  } else {
    TupleSpace ts(comm, layout);
    EXPECT_THROW(ts.put("bad*key", zeros({1})), Error);
    EXPECT_THROW(ts.put("", zeros({1})), Error);
    EXPECT_THROW(ts.try_get(""), Error);
    EXPECT_THROW(ts.put("k", Tensor()), Error);
    clients.barrier().wait();
    if (rank == 0) {
      ts.shutdown_servers();
      EXPECT_TRUE(ts.is_shut_down());
      try {
        ts.put("k", zeros({1}));
        ADD_FAILURE() << "put after shutdown did not throw";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("after shutdown_servers()"), std::string::npos)
            << e.what();
      }
      EXPECT_THROW(ts.get("k"), Error);
      EXPECT_THROW(ts.shutdown_servers(), Error);
    }
  }
  comm.barrier().wait();
}

}  // namespace
}  // namespace exadnn::flow
