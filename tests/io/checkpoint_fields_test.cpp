// Checked access to checkpoint fields, on files with valid checksums whose fields are well formed
// but not what the reader needs: an rng of shape [0] or [1], an optimizer lr stored as i64, an
// epoch that is not an integer, a history that is not a table.
#include <cmath>
#include <nlohmann/json.hpp>

#include "checkpoint_files.h"
#include "exadnn/io/checkpoint_fields.h"
#include "testing.h"

using namespace exadnn;
using exadnn::testing::ScratchDir;

namespace {

// A training-state checkpoint as exadnn train writes it, with `rng` and the optimizer's `lr`
// replaced by the given tensors.
std::string save_training_state(const ScratchDir& dir, const Tensor& rng, const Tensor& lr,
                                const std::map<std::string, std::string>& metadata) {
  Tensor w = ones({2, 3});
  w.requires_grad_(true);
  optim::SGD opt({w}, optim::SGDOptions(0.1).momentum(0.9));
  StateDict s;
  s.insert("model.w", w);
  for (const auto& [name, t] : opt.state_dict())
    s.insert("optimizer." + name, name == "lr" ? lr : t);
  s.insert("rng", rng);
  const std::string path = dir.file("last.ckpt");
  io::save_checkpoint(path, s, metadata);
  return path;
}

StateDict fresh_optimizer_state() {
  Tensor w = zeros({2, 3});
  w.requires_grad_(true);
  return optim::SGD({w}, optim::SGDOptions(0.5).momentum(0.9)).state_dict();
}

// Built on first use, not at static initialisation (the allocator may not exist yet).
Tensor good_rng() {
  return from_vector<int64_t>({42, 7});
}
Tensor good_lr() {
  return scalar_tensor(0.1, DType::f64);
}

}  // namespace

TEST(CheckpointFields, AGoodTrainingStateReads) {
  ScratchDir dir;
  const io::Checkpoint c = io::load_checkpoint(save_training_state(
      dir, good_rng(), good_lr(),
      {{"epoch", "4"}, {"history", "[[1, 0.5, 0.8, 100.0, 2.0], [2, null, 0.9, 1, 2]]"}}));
  EXPECT_EQ(to_vector<int64_t>(io::checkpoint_tensor(c, "rng", DType::i64, {2})),
            (std::vector<int64_t>{42, 7}));
  const StateDict opt = io::checkpoint_state(c, "optimizer.", fresh_optimizer_state());
  EXPECT_EQ(opt.at("lr").item<double>(), 0.1);
  EXPECT_EQ(io::checkpoint_int(c, "epoch", 0), 4);
  const auto history = io::checkpoint_table(c, "history", 5);
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0], (std::vector<double>{1, 0.5, 0.8, 100.0, 2.0}));
  EXPECT_TRUE(std::isnan(history[1][1]));  // a diverged epoch's loss: NaN, written as null
  EXPECT_TRUE(io::checkpoint_table(c, "absent", 5).empty());
}

// The defect: an rng of shape [0] crashed --resume (rng[0] of an empty vector), [1] was accepted.
TEST(CheckpointFields, RngOfTheWrongShapeIsNamed) {
  ScratchDir dir;
  for (const Tensor& rng :
       {zeros({0}, DType::i64), from_vector<int64_t>({42}), from_vector<double>({42, 7})}) {
    const io::Checkpoint c = io::load_checkpoint(save_training_state(dir, rng, good_lr(), {}));
    EXPECT_EXADNN_ERROR(io::checkpoint_tensor(c, "rng", DType::i64, {2}), c.path,
                        "field 'rng' must be i64 [2], got ", rng.shape().str());
  }
  StateDict none;
  none.insert("x", good_lr());
  const std::string path = dir.file("none.ckpt");
  io::save_checkpoint(path, none);
  EXPECT_EXADNN_ERROR(io::checkpoint_tensor(io::load_checkpoint(path), "rng", DType::i64, {2}),
                      path, "field 'rng' is missing");
}

// The defect: an optimizer lr stored as i64 was accepted.
TEST(CheckpointFields, OptimizerStateMustMatchTheFreshOne) {
  ScratchDir dir;
  const io::Checkpoint c =
      io::load_checkpoint(save_training_state(dir, good_rng(), scalar_tensor(1, DType::i64), {}));
  EXPECT_EXADNN_ERROR(io::checkpoint_state(c, "optimizer.", fresh_optimizer_state()), c.path,
                      "field 'optimizer.lr' must be f64 [], got i64 []");
  const io::Checkpoint good =
      io::load_checkpoint(save_training_state(dir, good_rng(), good_lr(), {}));
  // Another optimizer (Adam keeps other buffers): missing and unexpected fields are named.
  Tensor w = zeros({2, 3});
  w.requires_grad_(true);
  EXPECT_EXADNN_ERROR(io::checkpoint_state(good, "optimizer.",
                                           optim::Adam({w}, optim::AdamOptions(0.1)).state_dict()),
                      good.path, "unexpected field 'optimizer.0.momentum_buffer'");
  StateDict more = fresh_optimizer_state();
  more.insert("extra", good_lr());
  EXPECT_EXADNN_ERROR(io::checkpoint_state(good, "optimizer.", more), good.path,
                      "field 'optimizer.extra' is missing");
  // Another model: a parameter of another shape.
  StateDict model;
  model.insert("w", zeros({3, 2}));
  EXPECT_EXADNN_ERROR(io::checkpoint_state(good, "model.", model), good.path,
                      "field 'model.w' must be f32 [3, 2], got f32 [2, 3]");
}

// The defect: a bad epoch gave "stoll" or "map::at".
TEST(CheckpointFields, EpochMustBeAnInteger) {
  ScratchDir dir;
  const auto with_epoch = [&](const std::string& epoch) {
    return io::load_checkpoint(save_training_state(dir, good_rng(), good_lr(), {{"epoch", epoch}}));
  };
  for (const std::string bad : {"three", "", "3.5", " 3", "3x"})
    EXPECT_EXADNN_ERROR(io::checkpoint_int(with_epoch(bad), "epoch", 0), "last.ckpt",
                        "metadata field 'epoch' = '" + bad + "' is not an integer");
  EXPECT_EXADNN_ERROR(io::checkpoint_int(with_epoch("99999999999999999999"), "epoch", 0),
                      "last.ckpt", "'epoch' = '99999999999999999999' is out of range");
  EXPECT_EXADNN_ERROR(io::checkpoint_int(with_epoch("-2"), "epoch", 0), "last.ckpt",
                      "'epoch' = -2 is outside [0, ");
  const io::Checkpoint none =
      io::load_checkpoint(save_training_state(dir, good_rng(), good_lr(), {}));
  EXPECT_EXADNN_ERROR(io::checkpoint_int(none, "epoch", 0), none.path,
                      "metadata field 'epoch' is missing");
  EXPECT_EXADNN_ERROR(io::checkpoint_string(none, "config"), none.path,
                      "metadata field 'config' is missing");
}

// The defect: a bad history gave the JSON library's own messages.
TEST(CheckpointFields, HistoryMustBeATableOfNumbers) {
  ScratchDir dir;
  const auto table = [&](const std::string& history) {
    return io::checkpoint_table(io::load_checkpoint(save_training_state(dir, good_rng(), good_lr(),
                                                                        {{"history", history}})),
                                "history", 5);
  };
  EXPECT_EXADNN_ERROR(table("[[1, 2"), "last.ckpt", "metadata field 'history' is not valid JSON");
  EXPECT_EXADNN_ERROR(table("{\"a\": 1}"), "last.ckpt", "'history' must be an array of rows");
  EXPECT_EXADNN_ERROR(table("[[1, 2, 3, 4, 5], [1, 2, 3, 4]]"), "last.ckpt",
                      "'history': row 1 must be an array of 5 numbers, got [1,2,3,4]");
  EXPECT_EXADNN_ERROR(table("[[1, 2, \"x\", 4, 5]]"), "last.ckpt",
                      "'history': row 0 column 2 must be a number, got \"x\"");
  EXPECT_EXADNN_ERROR(table("[7]"), "last.ckpt", "row 0 must be an array of 5 numbers");
}
