// COMMLIB channels at 2, 3 and 4 ranks: payload integrity, non-blocking sends, every dtype and
// layout of tensors, raw arrays, m × n pairings, move, end of stream (close, drain), and the
// errors of misuse.
#include "exadnn/flow/channel.h"

#include <mpi.h>

#include <cmath>
#include <memory>
#include <numeric>

#include "exadnn/dist/mpi_interop.h"
#include "exadnn/ops/factories.h"
#include "testing.h"

namespace exadnn::flow {
namespace {

using exadnn::testing::values;

// The ranks [begin, end) of the communicator.
std::vector<int> ranks(int begin, int end) {
  std::vector<int> r(static_cast<size_t>(end - begin));
  std::iota(r.begin(), r.end(), begin);
  return r;
}

class ChannelTest : public ::testing::Test {
 protected:
  // COMMLIB's own duplicate of the job, as the Executive hands it over.
  dist::Communicator comm = dist::from_mpi(MPI_COMM_WORLD);
  int rank = comm.rank();
  int size = comm.size();
  // Every rank leaves a test together, so no message of one test is left for the next.
  void TearDown() override { comm.barrier().wait(); }
};

// Sender: rank 0; receiver: the last rank.
TEST_F(ChannelTest, MillionDoublesArriveIntact) {
  Channel ch(comm, {"doubles", 1, {0}, {size - 1}});
  constexpr int64_t n = 1'000'000;
  auto value = [](int64_t i) { return std::sin(0.001 * double(i)) * 1e3 + double(i); };
  double expected = 0;
  for (int64_t i = 0; i < n; ++i) expected += value(i);
  if (ch.is_sender()) {
    Tensor t = empty({n}, DType::f64);
    double* p = t.data<double>();
    for (int64_t i = 0; i < n; ++i) p[i] = value(i);
    ch.send(t).wait();
    std::vector<double> raw(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) raw[static_cast<size_t>(i)] = value(i);
    ch.send(std::span<const double>(raw)).wait();
  }
  if (ch.is_receiver()) {
    Tensor t = ch.recv();
    ASSERT_EQ(t.dtype(), DType::f64);
    ASSERT_EQ(t.shape(), Shape({n}));
    const double* p = t.data<double>();
    double sum = 0;
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      sum += p[i];
      wrong += p[i] != value(i);
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(sum, expected);  // same values added in the same order: bit-identical
    std::vector<double> raw = ch.recv_vector<double>();
    ASSERT_EQ(raw.size(), size_t(n));
    EXPECT_EQ(std::accumulate(raw.begin(), raw.end(), 0.0), expected);
  }
}

TEST_F(ChannelTest, NonBlockingSendsCompleteOnWaitAndTest) {
  Channel ch(comm, {"nonblocking", 2, {0}, {size - 1}});
  const std::vector<int64_t> sizes = {1, 1000, 600'000};  // inline, and straight from memory
  if (ch.is_sender()) {
    std::vector<Tensor> sent;
    std::vector<dist::Work> works;
    for (int64_t n : sizes) {
      sent.push_back(arange(n, DType::f32));
      works.push_back(ch.send(sent.back()));
    }
    works[2].wait();
    EXPECT_TRUE(works[2].completed());
    while (!works[0].test()) {
    }
    while (!works[1].test()) {
    }
    EXPECT_TRUE(works[0].completed() && works[1].completed());
  }
  if (ch.is_receiver()) {
    for (int64_t n : sizes) {
      Tensor t = ch.recv();
      ASSERT_EQ(t.numel(), n);
      EXPECT_EQ(t.data<float>()[n - 1], float(n - 1));
    }
  }
}

TEST_F(ChannelTest, EveryDTypeAndShapeIncludingStrided) {
  Channel ch(comm, {"dtypes", 3, {size - 1}, {0}});
  const std::vector<DType> dtypes = {DType::f32, DType::f64, DType::f16, DType::bf16,
                                     DType::i32, DType::i64, DType::u8,  DType::boolean};
  const std::vector<Shape> shapes = {Shape{}, Shape{0}, Shape{3, 4}, Shape{2, 3, 5},
                                     Shape{70, 40}};  // the last is past the inline limit
  // Values 0 .. 99 cycling (0/1 for booleans): exact in every dtype.
  auto make = [](DType dt, const Shape& s) {
    Tensor t = empty(s, DType::f64);
    double* p = t.data<double>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = dt == DType::boolean ? i % 2 : i % 100;
    return t.to(dt);
  };
  for (DType dt : dtypes)
    for (const Shape& s : shapes) {
      Tensor expected = make(dt, s);
      if (ch.is_sender()) {
        ch.send(expected).wait();
        // Non-contiguous: the transpose of a 2-D tensor, sent as its own (packed) copy.
        if (s.size() == 2) ch.send(expected.t()).wait();
      }
      if (ch.is_receiver()) {
        Tensor got = ch.recv();
        EXPECT_EQ(got.dtype(), dt);
        EXPECT_EQ(got.shape(), s) << dtype_name(dt);
        EXPECT_EQ(values(got), values(expected)) << dtype_name(dt) << " " << s.str();
        if (s.size() == 2) {
          Tensor got_t = ch.recv();
          EXPECT_TRUE(got_t.is_contiguous());
          EXPECT_EQ(got_t.shape(), Shape({s[1], s[0]}));
          EXPECT_EQ(values(got_t), values(expected.t())) << dtype_name(dt);
        }
      }
    }
}

TEST_F(ChannelTest, ReceiveIntoExistingBuffersAndSpans) {
  Channel ch(comm, {"into", 4, {0}, {size - 1}});
  if (ch.is_sender()) {
    ch.send(arange(int64_t{5000}, DType::f64).reshape({50, 100})).wait();
    const std::vector<int32_t> ints = {1, 2, 3, 4, 5};
    ch.send(std::span<const int32_t>(ints)).wait();
    std::vector<uint16_t> shorts = {7, 8, 9};         // no dtype: travels as raw bytes
    ch.send(std::span(shorts)).wait();                // a span of mutable elements
    ch.send(arange(int64_t{10}, DType::f32)).wait();  // will not fit the receiver's buffer
    ch.send(arange(int64_t{3}, DType::i64)).wait();   // the channel is still in step after that
  }
  if (ch.is_receiver()) {
    Tensor out = zeros({5000}, DType::f64);  // another shape of the same element count
    const void* before = out.data_ptr();
    ch.recv_into(out);
    EXPECT_EQ(out.data_ptr(), before);
    EXPECT_EQ(out.data<double>()[4999], 4999.0);
    std::vector<int32_t> ints(8, -1);
    EXPECT_EQ(ch.recv_into(std::span<int32_t>(ints)), 5u);
    EXPECT_EQ(ints, (std::vector<int32_t>{1, 2, 3, 4, 5, -1, -1, -1}));
    std::vector<uint16_t> shorts(3);
    EXPECT_EQ(ch.recv_into(std::span<uint16_t>(shorts)), 3u);
    EXPECT_EQ(shorts, (std::vector<uint16_t>{7, 8, 9}));
    Tensor small = zeros({4}, DType::f32);
    try {
      ch.recv_into(small);
      ADD_FAILURE() << "recv_into a tensor that is too small did not throw";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'into'"), std::string::npos) << e.what();
    }
    EXPECT_EQ(values(ch.recv()), (std::vector<double>{0, 1, 2}));
  }
}

// Every split of the ranks into m senders and n = size - m receivers: explicit peers (every
// sender to every receiver), default pairing, and recv_any.
TEST_F(ChannelTest, EveryMByNLayoutPairsAsDocumented) {
  for (int m = 1; m < size; ++m) {
    Channel ch(comm, {"mxn", 10 + m, ranks(0, m), ranks(m, size)});
    const int n = size - m;
    EXPECT_EQ(ch.sender_count(), m);
    EXPECT_EQ(ch.receiver_count(), n);
    auto code = [](int s, int r) { return 100.0 * s + r; };
    if (ch.is_sender()) {
      const int s = ch.sender_index();
      std::vector<Tensor> keep;
      std::vector<dist::Work> works;
      for (int r = 0; r < n; ++r) {
        keep.push_back(full({2}, code(s, r), DType::f64));
        works.push_back(ch.send(keep.back(), r));
      }
      keep.push_back(full({1}, code(s, ch.default_receiver()), DType::f64));
      works.push_back(ch.send(keep.back()));
      for (dist::Work& w : works) w.wait();
      EXPECT_EQ(ch.default_receiver(), s % n);
    }
    if (ch.is_receiver()) {
      const int r = ch.receiver_index();
      for (int s = 0; s < m; ++s)
        EXPECT_EQ(values(ch.recv(s)), (std::vector<double>{code(s, r), code(s, r)}));
      const std::vector<int> defaults = ch.default_senders();
      EXPECT_EQ(ch.default_sender(), r % m);
      // Messages from the default senders, taken in any order by recv_any.
      std::vector<int> seen;
      for (size_t k = 0; k < defaults.size(); ++k) {
        ChannelMessage msg = ch.recv_any();
        EXPECT_EQ(values(msg.value), (std::vector<double>{code(msg.sender, r)}));
        seen.push_back(msg.sender);
      }
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(seen, defaults);
    }
    comm.barrier().wait();
  }
}

// Every rank is sender and receiver: a ring, each rank sending to the next and to itself.
TEST_F(ChannelTest, RanksOnBothSidesFormARing) {
  Channel ch(comm, {"ring", 5, ranks(0, size), ranks(0, size)});
  Tensor to_next = full({3}, rank, DType::i32);
  Tensor to_self = full({5000}, -rank, DType::i32);  // past the inline limit: two messages
  dist::Work a = ch.send(to_next, (rank + 1) % size);
  dist::Work b = ch.send(to_self);  // default receiver: own index
  EXPECT_EQ(values(ch.recv((rank + size - 1) % size)),
            std::vector<double>(3, double((rank + size - 1) % size)));
  EXPECT_EQ(values(ch.recv()), std::vector<double>(5000, double(-rank)));
  a.wait();
  b.wait();
}

TEST_F(ChannelTest, MoveHandsOverTheTensor) {
  Channel ch(comm, {"move", 6, {0}, {size - 1}});
  if (ch.is_sender()) {
    Tensor t = arange(int64_t{300'000}, DType::f64);
    std::weak_ptr<Storage> storage = t.storage();
    dist::Work w = ch.move(std::move(t));
    EXPECT_FALSE(t.defined());  // NOLINT(bugprone-use-after-move): move() leaves it undefined
    w.wait();
    EXPECT_TRUE(storage.expired());  // nobody holds the payload once the send completed
  }
  if (ch.is_receiver()) {
    Tensor got = ch.recv();
    EXPECT_EQ(got.numel(), 300'000);
    EXPECT_EQ(got.data<double>()[299'999], 299'999.0);
  }
}

// Expects `f` to throw an exadnn::Error whose message holds every one of `parts`.
template <class F>
void expect_error(F&& f, std::initializer_list<const char*> parts) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    for (const char* part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "'" << part << "' missing from: " << e.what();
  }
}

// A sender that fails after two messages: the receiver takes both, then every receiving call
// throws ChannelClosed naming the sender and its reason, at once and without blocking again.
TEST_F(ChannelTest, CloseEndsTheReceiversWaitWithTheSendersReason) {
  Channel ch(comm, {"closing", 20, {0}, {size - 1}});
  if (ch.is_sender()) {
    dist::Work a = ch.send(full({2}, 1.0, DType::f64));
    dist::Work b = ch.send(full({5000}, 2.0, DType::f64));  // past the inline limit
    dist::Work c = ch.close("module 'sim' instance 0 iteration 0 failed on rank 0: boom", true);
    EXPECT_TRUE(ch.is_closed());
    expect_error([&] { (void)ch.send(zeros({1})); }, {"'closing'", "send", "after close()"});
    expect_error([&] { (void)ch.close("again"); }, {"'closing'", "close", "after close()"});
    a.wait();
    b.wait();
    c.wait();
  }
  if (ch.is_receiver()) {
    EXPECT_EQ(values(ch.recv()), std::vector<double>(2, 1.0));
    EXPECT_EQ(values(ch.recv()), std::vector<double>(5000, 2.0));
    EXPECT_FALSE(ch.is_closed_by(0));
    try {
      ch.recv();
      ADD_FAILURE() << "recv after the close did not throw";
    } catch (const ChannelClosed& e) {
      EXPECT_EQ(e.sender(), 0);
      EXPECT_TRUE(e.failed());
      EXPECT_EQ(e.reason(), "module 'sim' instance 0 iteration 0 failed on rank 0: boom");
      const std::string what = e.what();
      for (const char* part : {"flow::Channel 'closing'", "recv from sender 0 (rank 0)",
                               "closed the channel because it failed", "boom"})
        EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' missing: " << what;
    }
    EXPECT_TRUE(ch.is_closed_by(0));
    EXPECT_THROW(ch.recv(), ChannelClosed);  // again, without waiting
    Tensor into = zeros({2}, DType::f64);
    EXPECT_THROW(ch.recv_into(into), ChannelClosed);
    EXPECT_THROW(ch.recv_any(), ChannelClosed);
    EXPECT_EQ(ch.drain(), 0);
  }
}

// Several senders, each sending i + 1 messages and closing in order: recv_any takes every
// message, then throws once the last sender has closed.
TEST_F(ChannelTest, RecvAnyEndsWhenEverySenderHasClosed) {
  const int m = size - 1;
  Channel ch(comm, {"many", 21, ranks(0, m), {size - 1}});
  if (ch.is_sender()) {
    std::vector<dist::Work> works;
    for (int k = 0; k <= ch.sender_index(); ++k)
      works.push_back(ch.send(full({1}, ch.sender_index(), DType::i32)));
    works.push_back(ch.close("done"));
    for (auto& w : works) w.wait();
  }
  if (ch.is_receiver()) {
    std::vector<int> per_sender(static_cast<size_t>(m), 0);
    try {
      for (;;) {
        ChannelMessage msg = ch.recv_any();
        EXPECT_EQ(values(msg.value)[0], msg.sender);
        ++per_sender[static_cast<size_t>(msg.sender)];
      }
    } catch (const ChannelClosed& e) {
      EXPECT_FALSE(e.failed());
      EXPECT_EQ(e.reason(), "done");
    }
    for (int s = 0; s < m; ++s) {
      EXPECT_EQ(per_sender[static_cast<size_t>(s)], s + 1) << s;
      EXPECT_TRUE(ch.is_closed_by(s));
    }
  }
}

// A receiver that stops early drains the rest (a large payload included) up to the close, so the
// next user of the channel's tag starts clean.
TEST_F(ChannelTest, DrainTakesWhatIsLeftUpToTheClose) {
  {
    Channel ch(comm, {"drained", 22, {0}, {size - 1}});
    if (ch.is_sender()) {
      std::vector<dist::Work> works;
      for (int k = 0; k < 3; ++k) works.push_back(ch.send(full({100'000}, k, DType::f64)));
      works.push_back(ch.close("finished"));
      for (auto& w : works) w.wait();
    }
    if (ch.is_receiver()) {
      EXPECT_EQ(values(ch.recv())[0], 0.0);
      EXPECT_EQ(ch.drain(), 2);
      EXPECT_TRUE(ch.is_closed_by(0));
    }
  }
  // The next task on the same tag sees only its own messages.
  Channel next(comm, {"drained", 22, {0}, {size - 1}});
  if (next.is_sender()) next.send(full({4}, 7.0, DType::f64)).wait();
  if (next.is_receiver()) {
    EXPECT_EQ(values(next.recv()), std::vector<double>(4, 7.0));
  }
}

TEST_F(ChannelTest, WrongSideAndBadLayoutsAreClearErrors) {
  Channel ch(comm, {"sides", 7, {0}, {1}});
  if (!ch.is_sender()) {
    expect_error([&] { (void)ch.send(zeros({1})); },
                 {"'sides'", "not one of the channel's senders"});
    expect_error([&] { (void)ch.move(zeros({1})); }, {"'sides'", "move"});
    const std::vector<float> v(3);
    expect_error([&] { (void)ch.send(std::span<const float>(v)); }, {"'sides'", "senders"});
  }
  if (!ch.is_receiver()) {
    expect_error([&] { ch.recv(); }, {"'sides'", "not one of the channel's receivers"});
    expect_error([&] { ch.recv_any(); }, {"'sides'", "recv_any"});
    Tensor t = zeros({1});
    expect_error([&] { ch.recv_into(t); }, {"'sides'", "recv_into"});
  }
  if (ch.is_sender()) expect_error([&] { (void)ch.send(zeros({1}), 1); }, {"receiver index 1"});
  if (ch.is_receiver()) expect_error([&] { ch.recv(3); }, {"sender index 3"});
  expect_error(
      [&] {
        (void)Channel(comm, {"empty", 8, {}, {0}});
      },
      {"'empty'", "no sending ranks"});
  expect_error([&] { (void)Channel(comm, {"far", 8, {0}, {size}}); }, {"'far'", "receiver rank"});
  expect_error(
      [&] {
        (void)Channel(comm, {"twice", 8, {0, 0}, {1}});
      },
      {"'twice'", "appears twice"});
  expect_error([&] { (void)Channel(comm, {"tag", -1, {0}, {1}}); }, {"'tag'", "tag -1"});
}

}  // namespace
}  // namespace exadnn::flow
