// The shards as dataset kinds of `exadnn train` configs (linked into `exadnn`):
//   data: {dataset: cbed-space-group, path: cbed_shards, batch_size: 64}     targets 0..229
//   data: {dataset: cbed-crystal-system, path: cbed_shards, batch_size: 64}  targets 0..6
// `path` is the generator's folder; the training set is its train split, the test set its test
// split, each a ShardDataset (patterns read from the shards per batch by the DataLoader's
// prefetch thread, never the whole split in memory).
#include <exadnn/train/datasets.h>

#include "cbed/loader.h"

namespace cbed::shard {
namespace {

exadnn::train::DatasetKind shard_kind(Target target) {
  return {[](const exadnn::train::DataSpec& d) {
            return d.path.empty() ? std::string("needs 'path' (the shard folder)") : std::string();
          },
          [target](const exadnn::train::DataSpec& d) -> exadnn::train::TrainingData {
            auto open = [&](Split split) {
              return std::make_shared<ShardDataset>(
                  std::make_shared<const ShardSet>(ShardSet::open_split(d.path, split)), target);
            };
            return {open(Split::train), open(Split::test), nullptr};
          },
          [](const exadnn::train::DataSpec& d, bool train) {
            return d.path + (train ? "/cbed_train_*.h5" : "/cbed_test_*.h5");
          },
          [](const exadnn::train::DataSpec& d, bool train) {
            return d.path + (train ? "/cbed_train_*.h5" : "/cbed_test_*.h5") + " (labels)";
          }};
}

const bool registered = [] {
  exadnn::train::datasets().add("cbed-space-group", shard_kind(Target::space_group));
  exadnn::train::datasets().add("cbed-crystal-system", shard_kind(Target::crystal_system));
  return true;
}();

}  // namespace
}  // namespace cbed::shard
