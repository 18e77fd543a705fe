// DataLoader over a BatchStream (an out-of-core source): batches handed out as the stream makes
// them, the epoch numbers passed on (set_epoch included), the transform applied, no random
// access, and a stream that ends early named.
#include <vector>

#include "exadnn/data/data_loader.h"
#include "exadnn/data/tensor_dataset.h"
#include "testing.h"

namespace exadnn::data {
namespace {

using exadnn::testing::values;

// A stream of `batches` batches of 2 examples per epoch, example values 100 * epoch + k (k
// counting from 0 within the epoch); `short_by` batches fewer than it announces.
class CountingStream : public BatchStream {
 public:
  CountingStream(int64_t batches, int64_t short_by = 0) : batches_(batches), short_by_(short_by) {}
  int64_t batches_per_epoch() const override { return batches_; }
  void start_epoch(int64_t epoch) override {
    epoch_ = epoch;
    made_ = 0;
    started.push_back(epoch);
  }
  std::optional<Batch> next() override {
    if (made_ >= batches_ - short_by_) return std::nullopt;
    std::vector<float> x;
    std::vector<int64_t> y;
    for (int k = 0; k < 2; ++k, ++count_) {
      x.push_back(float(100 * epoch_ + 2 * made_ + k));
      y.push_back(k);
    }
    ++made_;
    return Batch{from_vector(x, {2, 1}), from_vector(y, {2})};
  }
  std::vector<int64_t> started;  // the epochs start_epoch was given

 private:
  int64_t batches_, short_by_, epoch_ = 0, made_ = 0, count_ = 0;
};

std::shared_ptr<const Dataset> shapes_only(int64_t n) {
  return std::make_shared<TensorDataset>(from_vector(std::vector<float>(size_t(n)), {n, 1}),
                                         from_vector(std::vector<int64_t>(size_t(n)), {n}));
}

struct Doubles : Transform {
  Tensor apply(const Tensor& x, Generator&) const override {
    std::vector<float> v;
    for (double e : values(x)) v.push_back(float(2 * e));
    return from_vector(v, x.shape());
  }
};

TEST(DataLoaderStream, HandsOutTheStreamsBatchesPerEpoch) {
  auto stream = std::make_unique<CountingStream>(3);
  CountingStream* s = stream.get();
  DataLoader loader(shapes_only(6), std::move(stream),
                    DataLoaderOptions().transform(std::make_shared<Doubles>()));
  EXPECT_EQ(loader.batches_per_epoch(), 3);
  std::vector<double> seen;
  for (const Batch& b : loader)
    for (double v : values(b.inputs)) seen.push_back(v);
  EXPECT_EQ(seen, (std::vector<double>{0, 2, 4, 6, 8, 10}));  // transformed, in stream order
  loader.set_epoch(4);                                        // a resumed run
  seen.clear();
  for (const Batch& b : loader)
    for (double v : values(b.inputs)) seen.push_back(v);
  EXPECT_EQ(seen.front(), 800.0);
  EXPECT_EQ(s->started, (std::vector<int64_t>{0, 4}));
}

TEST(DataLoaderStream, HasNoRandomAccessAndNamesAShortStream) {
  DataLoader loader(shapes_only(6), std::make_unique<CountingStream>(3, 1));
  EXPECT_EXADNN_ERROR(loader.epoch_order(0), "DataLoader", "streams its batches");
  EXPECT_EXADNN_ERROR(loader.build(0, 0, {0, 1}), "DataLoader", "streams its batches");
  EXPECT_TRUE(loader.next().has_value());
  EXPECT_TRUE(loader.next().has_value());
  EXPECT_EXADNN_ERROR(loader.next(), "DataLoader", "the stream ended epoch 0 after 2 of its 3");
  EXPECT_EXADNN_ERROR(DataLoader(shapes_only(2), std::unique_ptr<BatchStream>()),
                      "null dataset or stream");
}

}  // namespace
}  // namespace exadnn::data
