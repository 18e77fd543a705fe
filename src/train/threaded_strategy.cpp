#include "threaded_strategy.h"

#include "exadnn/async/async_trainer.h"

namespace exadnn::train::internal {
namespace {

// Each epoch runs on `threads` workers, each with its own replica and optimizer, publishing
// into the model's parameters (which the AsyncTrainer moves into its slab). The steps are the
// workers', so the Trainer's per-step work and hooks do not run; epochs are reported whole.
class ThreadedStrategy : public Strategy {
 public:
  ThreadedStrategy(const HogwildSpec& spec, async::AsyncMode mode) : spec_(spec), mode_(mode) {}

  void attach(const std::shared_ptr<nn::Module>& model, const TrainingRecipe& recipe) override {
    EXADNN_CHECK(recipe.make_model, "train", "distributed.mode '", spec_.mode,
                 "' trains replicas of the model: give the Trainer a make_model (TrainerParts) "
                 "or a config with a model list");
    trainer_ = std::make_unique<async::AsyncTrainer>(
        model, recipe.make_model, recipe.make_optimizer, recipe.batch_loss,
        async::AsyncOptions().mode(mode_).threads(spec_.threads).accumulate(spec_.accumulate));
  }

  EpochTotals train_epoch(data::DataLoader& loader, int64_t epoch, const BatchStep&) override {
    const async::EpochStats stats = trainer_->train_epoch(loader, epoch);
    return {stats.loss * static_cast<double>(stats.batches), stats.batches, stats.samples, 0.0};
  }

  std::string describe() const override {
    return spec_.mode + " on " + std::to_string(spec_.threads) + " threads";
  }

 private:
  HogwildSpec spec_;
  async::AsyncMode mode_;
  std::unique_ptr<async::AsyncTrainer> trainer_;
};

}  // namespace

std::unique_ptr<Strategy> make_threaded_strategy(const HogwildSpec& spec, async::AsyncMode mode) {
  return std::make_unique<ThreadedStrategy>(spec, mode);
}

}  // namespace exadnn::train::internal
