// Convergence on a planted sparse logistic regression (100k samples, 10k features, 10 non-zeros
// each): two hogwild threads end within 1% of serial SGD's loss after the same samples.
#include <gtest/gtest.h>

#include <cmath>

#include "async_testing.h"
#include "testing.h"

namespace exadnn {
namespace {

constexpr int64_t kSamples = 100000, kFeatures = 10000, kNonZeros = 10;

// z[b] = sum_j w[index[b, j]] * value[b, j] + bias, with x = [B, 2·nnz] = (indices, values).
struct SparseDot : autograd::Function {
  std::vector<Tensor> forward(autograd::FunctionContext& ctx,
                              const std::vector<Tensor>& in) override {
    ctx.save_for_backward({in[0]});
    const Tensor x = in[0].contiguous();
    const int64_t batch = x.size(0);
    Tensor z = empty({batch}, DType::f32);
    const float *px = x.data<float>(), *w = in[1].data<float>();
    const float bias = in[2].data<float>()[0];
    for (int64_t b = 0; b < batch; ++b) {
      const float* row = px + b * 2 * kNonZeros;
      float s = bias;
      for (int64_t j = 0; j < kNonZeros; ++j)
        s += w[static_cast<int64_t>(row[j])] * row[kNonZeros + j];
      z.data<float>()[b] = s;
    }
    return {z};
  }
  std::vector<Tensor> backward(autograd::FunctionContext& ctx,
                               const std::vector<Tensor>& grad) override {
    const Tensor x = ctx.saved()[0].contiguous(), g = grad[0].contiguous();
    Tensor gw = zeros({kFeatures}, DType::f32), gb = zeros({1}, DType::f32);
    const float* px = x.data<float>();
    for (int64_t b = 0; b < x.size(0); ++b) {
      const float* row = px + b * 2 * kNonZeros;
      const float gz = g.data<float>()[b];
      for (int64_t j = 0; j < kNonZeros; ++j)
        gw.data<float>()[static_cast<int64_t>(row[j])] += gz * row[kNonZeros + j];
      gb.data<float>()[0] += gz;
    }
    return {Tensor(), gw, gb};
  }
};

class SparseLogReg : public nn::Module {
 public:
  SparseLogReg() : weight_(zeros({kFeatures}, DType::f32)), bias_(zeros({1}, DType::f32)) {
    register_parameter("weight", &weight_);
    register_parameter("bias", &bias_);
  }
  Tensor forward(const Tensor& x) override {
    return autograd::apply<SparseDot>({x, weight_, bias_})[0];
  }
  std::string name() const override { return "SparseLogReg"; }

 private:
  Tensor weight_, bias_;
};

Tensor logistic_loss(nn::Module& model, const data::Batch& batch) {
  return nn::bce_with_logits(model(batch.inputs), batch.targets);
}

// Labels ~ Bernoulli(sigmoid(x·w*)), w* ~ N(0, 1); indices uniform, values N(0, 1).
std::shared_ptr<const data::Dataset> planted_dataset() {
  Generator gen(2024);
  const Tensor planted = randn({kFeatures}, DType::f64, &gen);
  const Tensor values = randn({kSamples, kNonZeros}, DType::f32, &gen);
  Tensor x = empty({kSamples, 2 * kNonZeros}, DType::f32), y = empty({kSamples}, DType::f32);
  const uint64_t base = gen.advance(static_cast<uint64_t>(kSamples * (kNonZeros + 1)));
  for (int64_t i = 0; i < kSamples; ++i) {
    float* row = x.data<float>() + i * 2 * kNonZeros;
    double z = 0.0;
    for (int64_t j = 0; j < kNonZeros; ++j) {
      const auto index = static_cast<int64_t>(gen.bits_at(base + i * (kNonZeros + 1) + j) %
                                              static_cast<uint64_t>(kFeatures));
      row[j] = static_cast<float>(index);
      row[kNonZeros + j] = values.data<float>()[i * kNonZeros + j];
      z += planted.data<double>()[index] * row[kNonZeros + j];
    }
    const double u = gen.uniform_at(base + i * (kNonZeros + 1) + kNonZeros);
    y.data<float>()[i] = u < 1.0 / (1.0 + std::exp(-z)) ? 1.0f : 0.0f;
  }
  return std::make_shared<data::TensorDataset>(x, y);
}

TEST(SparseLogisticRegression, TwoHogwildThreadsEndWithinOnePercentOfSerial) {
  const auto dataset = planted_dataset();
  const data::DataLoader loader(
      dataset, data::DataLoaderOptions().batch_size(10).shuffle(true).seed(1).prefetch(0));
  const data::DataLoader whole(dataset, data::DataLoaderOptions().batch_size(10000).prefetch(0));
  const auto sgd = testing::sgd_factory(optim::SGDOptions(0.5));
  const auto make = [] { return std::make_shared<SparseLogReg>(); };
  constexpr int64_t kEpochs = 2;

  auto serial = make();
  testing::train_serial(*serial, loader, sgd, logistic_loss, kEpochs);
  const double serial_loss = testing::mean_loss(*serial, whole, logistic_loss);

  auto shared = make();
  async::AsyncTrainer trainer(shared, make, sgd, logistic_loss,
                              async::AsyncOptions().mode(async::AsyncMode::hogwild).threads(2));
  int64_t samples = 0;
  for (int64_t e = 0; e < kEpochs; ++e) samples += trainer.train_epoch(loader, e).samples;
  EXPECT_EQ(samples, kEpochs * kSamples);
  const double hogwild_loss = testing::mean_loss(*shared, whole, logistic_loss);

  const double initial = std::log(2.0);
  EXPECT_LT(serial_loss, 0.8 * initial);  // it learned something
  EXPECT_LT(std::abs(hogwild_loss - serial_loss), 0.01 * serial_loss)
      << "serial " << serial_loss << ", hogwild " << hogwild_loss;
  RecordProperty("serial_loss", std::to_string(serial_loss));
  RecordProperty("hogwild_loss", std::to_string(hogwild_loss));
}

}  // namespace
}  // namespace exadnn
