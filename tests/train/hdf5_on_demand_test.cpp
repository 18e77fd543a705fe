// `data: {dataset: hdf5, in_memory: false}`: the sets are data::Hdf5Dataset (inputs read per
// batch), and training on them gives the losses and accuracy of the same file loaded whole.
#include "exadnn/data/hdf5.h"
#include "exadnn/data/hdf5_dataset.h"
#include "exadnn/exadnn.h"
#include "exadnn/train/config.h"
#include "exadnn/train/datasets.h"
#include "exadnn/train/trainer.h"
#include "testing.h"
#include "tiny_idx.h"

namespace exadnn {
namespace {

using exadnn::fixtures::scratch;

TEST(Hdf5OnDemand, TrainsLikeTheFileLoadedWhole) {
  namespace fs = std::filesystem;
  const fs::path dir = scratch();
  const std::string file = (dir / "set.h5").string();
  // 96 training and 32 test images [1, 8, 8]: class 1 has a bright top half, class 0 a bright
  // bottom half, on noise.
  Generator gen(11);
  const auto split = [&](int64_t n) {
    Tensor x = rand({n, 1, 8, 8}, {}, &gen), y = empty({n}, DType::i64);
    for (int64_t i = 0; i < n; ++i) {
      y.data<int64_t>()[i] = i % 2;
      for (int64_t p = 0; p < 32; ++p) x.data<float>()[i * 64 + (i % 2 ? p : 32 + p)] += 1.0f;
    }
    return std::pair{x, y};
  };
  const auto [x, y] = split(96);
  const auto [tx, ty] = split(32);
  data::write_hdf5(file, {{"train/x", x}, {"train/y", y}, {"test/x", tx}, {"test/y", ty}});
  std::vector<std::vector<double>> losses;
  for (const char* in_memory : {"true", "false"}) {
    const train::TrainConfig c = train::parse_config(
        "data: {dataset: hdf5, file: " + file + ", batch_size: 16, in_memory: " + in_memory +
            "}\nmodel: [flatten, {linear: {out: 8}}, relu, {linear: {out: 2}}]\n"
            "epochs: 3\noptimizer: {name: sgd, lr: 0.1}\nseed: 3\n",
        "h.yaml");
    const train::TrainingData data = train::load_training_data(c.data);
    EXPECT_EQ(dynamic_cast<const data::Hdf5Dataset*>(data.train.get()) != nullptr,
              std::string(in_memory) == "false");
    train::Trainer trainer(c);
    EXPECT_GT(trainer.fit(), 0.9);
    losses.emplace_back();
    for (const train::EpochRecord& e : trainer.history()) losses.back().push_back(e.train_loss);
  }
  EXPECT_EQ(losses[0], losses[1]);
  EXPECT_EXADNN_ERROR(train::parse_config("data: {dataset: hdf5, file: a.h5, in_memory: 3}\n"
                                          "model: [flatten]\n",
                                          "m.yaml"),
                      "in_memory", "true or false");
}

}  // namespace
}  // namespace exadnn
