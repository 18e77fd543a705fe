#include "climate/correction_trainer.h"

#include <exadnn/exadnn.h>
#include <exadnn/train/trainer.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "climate/dihedral.h"

namespace climate {

namespace {

exadnn::Shape face_shape(int channels, int size) {
  return {channels, size, size};
}

}  // namespace

std::shared_ptr<exadnn::data::TensorDataset> CorrectionTrainer::normalised(
    const std::shared_ptr<exadnn::data::TensorDataset>& raw) const {
  // The draw is a fresh copy: normalised in place.
  correction_.normalise(raw->size(), raw->inputs().data<float>(), raw->targets().data<float>());
  return raw;
}

void CorrectionTrainer::reorient(exadnn::data::TensorDataset& draw, uint64_t seed) const {
  const int64_t in = correction_.input_floats(), out = correction_.target_floats();
  const int64_t in_channels = correction_.input_channels(),
                out_channels = correction_.options().fields;
  const int64_t w = correction_.halo().width(), n = correction_.halo().n();
  float* x = draw.inputs().data<float>();
  float* y = draw.targets().data<float>();
  std::vector<float> scratch(static_cast<size_t>(std::max(in, out)));
  std::mt19937_64 rng(seed ^ 0x5bd1e995u);
  std::uniform_int_distribution<int> pick(0, kDihedralSymmetries - 1);
  for (int64_t e = 0; e < draw.size(); ++e) {
    const int s = pick(rng);
    if (s == 0) continue;
    float* xe = x + e * in;
    float* ye = y + e * out;
    dihedral_transform(xe, scratch.data(), in_channels, w, s);
    std::copy_n(scratch.data(), in, xe);
    dihedral_transform(ye, scratch.data(), out_channels, n, s);
    std::copy_n(scratch.data(), out, ye);
  }
}

CorrectionTrainer::CorrectionTrainer(Correction& correction,
                                     const CorrectionTrainerOptions& options)
    : correction_(correction),
      options_(options),
      buffer_(options.capacity, face_shape(correction.input_channels(), correction.halo().width()),
              face_shape(correction.options().fields, correction.halo().n())) {
  EXADNN_CHECK(options.batch >= 1, "climate::CorrectionTrainer", "batch = ", options.batch,
               ": need at least one example per step");
  EXADNN_CHECK(options.lr > 0, "climate::CorrectionTrainer", "lr = ", options.lr,
               ": the learning rate must be positive");
}

void CorrectionTrainer::add(const Fields& decompressed, const Fields& original) {
  correction_.observe(decompressed, original);
  const int64_t in = correction_.input_floats(), out = correction_.target_floats();
  std::vector<float> x(static_cast<size_t>(6 * in)), y(static_cast<size_t>(6 * out));
  correction_.samples(decompressed, original, x.data(), y.data());
  for (int f = 0; f < 6; ++f) buffer_.push(&x[f * in], &y[f * out]);
}

TrainingRound CorrectionTrainer::train(int64_t examples) {
  EXADNN_CHECK(buffer_.size() > 0, "climate::CorrectionTrainer",
               "a training round before any pair arrived");
  const auto start = std::chrono::steady_clock::now();
  const uint64_t seed = options_.seed * 1000003 + static_cast<uint64_t>(rounds_);
  exadnn::train::TrainerParts parts;
  parts.model = correction_.model();
  auto draw = buffer_.draw(examples, seed);
  if (options_.augment) reorient(*draw, seed);
  parts.data.train = normalised(draw);
  parts.data.test = normalised(buffer_.newest(6));  // the newest output step's faces
  parts.score = [](exadnn::nn::Module& m, const exadnn::train::TrainingData& d) {
    exadnn::NoGradGuard no_grad;  // minus the MSE on the newest step
    const auto& set = dynamic_cast<const exadnn::data::TensorDataset&>(*d.test);
    return -exadnn::nn::mse_loss(m.forward(set.inputs()), set.targets()).item<double>();
  };
  exadnn::train::TrainConfig config;
  config.loss = "mse";
  config.optimizer.name = "adam";
  config.optimizer.lr = options_.lr;
  config.optimizer.momentum = 0;
  config.epochs = 1;
  config.data.batch_size = std::min<int64_t>(options_.batch, parts.data.train->size());
  config.data.shuffle = true;
  config.seed = seed;
  TrainingRound round;
  round.examples = parts.data.train->size();
  exadnn::train::Trainer trainer(config, {}, std::move(parts));
  if (!optimizer_state_.empty()) trainer.optimizer().load_state_dict(optimizer_state_);
  trainer.fit();
  optimizer_state_ = trainer.optimizer().state_dict();
  round.loss = trainer.history().back().train_loss;
  round.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++rounds_;
  examples_trained_ += round.examples;
  return round;
}

}  // namespace climate
