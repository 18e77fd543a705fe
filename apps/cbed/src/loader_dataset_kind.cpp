// The shards as dataset kinds of `exadnn train` configs (linked into `exadnn`):
//   data: {dataset: cbed-space-group, path: cbed_shards, batch_size: 64}     targets 0..229
//   data: {dataset: cbed-crystal-system, path: cbed_shards, batch_size: 64}  targets 0..6
//   data: {dataset: cbed-space-group, path: cbed_shards, stream: {buffer_mb: 64}}
//   data: {dataset: cbed-space-group, path: /data/ornl_cbed, layout: {format: sample_groups}}
// `path` is the generator's folder (or, with `layout`, a folder of files in another layout:
// file_layout.h); the training set is its train split, the test set its test split, each a
// ShardDataset (patterns read from the shards per batch by the DataLoader's prefetch thread, never
// the whole split in memory). With `stream` the training batches come from a ShardStream instead:
// blocks shuffled across the shards into a buffer of at most buffer_mb MiB, each data-parallel rank
// reading its own share of the samples. Inputs are put on the classifiers' log scale per pattern
// (pattern_scale.h) as they are read; under spatial parallelism each rank reads only its band of
// rows of every pattern (scaled with the pattern's maximum the shards store).
#include <exadnn/core/error.h>
#include <exadnn/train/datasets.h>

#include "cbed/loader.h"
#include "cbed/pattern_scale.h"
#include "cbed/space_group.h"

namespace cbed::shard {
namespace {

// The training split's ShardStream for one rank: the loader's batch size, seed and rank.
std::function<std::unique_ptr<exadnn::data::BatchStream>(const exadnn::data::DataLoaderOptions&)>
stream_maker(std::shared_ptr<const ShardSet> train, Target target, int64_t buffer_mb) {
  return [train, target, buffer_mb](const exadnn::data::DataLoaderOptions& loader) {
    StreamOptions o;
    o.batch_size = loader.batch_size();
    o.memory_bytes = size_t(buffer_mb) << 20;
    o.target = target;
    o.seed = loader.seed();
    o.scale = Scale::log;
    if (loader.height_band()) {  // spatial parallelism: this rank's rows of every pattern
      const auto [part, parts] = *loader.height_band();
      o.band =
          exadnn::data::height_band(exadnn::Shape{3, train->height(), train->width()}, part, parts);
    }
    if (loader.sampler()) {
      o.rank = loader.sampler()->rank();
      o.replicas = loader.sampler()->num_replicas();
    }
    try {
      return std::unique_ptr<exadnn::data::BatchStream>(std::make_unique<ShardStream>(train, o));
    } catch (const exadnn::Error& e) {
      throw exadnn::Error("data", exadnn::detail::cat("data.stream.buffer_mb = ", buffer_mb,
                                                      " is too small: ", e.what()));
    }
  };
}

// "folder/cbed_train_*.h5": where a split's samples come from, for messages.
std::string files(const exadnn::train::DataSpec& d, bool train) {
  return d.path + "/" + FileLayout::from_config(d.layout).files(train ? Split::train : Split::test);
}

// The classes' names in label order: the seven crystal systems, or the space groups' numbers
// (label g - 1 is group g).
std::vector<std::string> class_names(Target target) {
  std::vector<std::string> names;
  if (target == Target::crystal_system)
    for (int s = 0; s < 7; ++s) names.push_back(crystal_system_name(CrystalSystem(s)));
  else
    for (int g = 1; g <= 230; ++g) names.push_back(std::to_string(g));
  return names;
}

exadnn::train::DatasetKind shard_kind(Target target) {
  return {[](const exadnn::train::DataSpec& d) {
            if (d.path.empty()) return std::string("needs 'path' (the shard folder)");
            if (std::string why = FileLayout::problem(d.layout); !why.empty())
              return "cannot read its files so: " + why;
            if (d.stream_buffer_mb > 0 && !d.shuffle)
              return std::string(
                  "streams (data.stream) in a shuffled order: 'shuffle: false' "
                  "cannot hold");
            return std::string();
          },
          [target](const exadnn::train::DataSpec& d) -> exadnn::train::TrainingData {
            const FileLayout layout = FileLayout::from_config(d.layout);
            auto open = [&](Split split) {
              return std::make_shared<const ShardSet>(ShardSet::open_split(d.path, split, layout));
            };
            const std::shared_ptr<const ShardSet> train = open(Split::train);
            exadnn::train::TrainingData data{
                std::make_shared<ShardDataset>(train, target, Scale::log),
                std::make_shared<ShardDataset>(open(Split::test), target, Scale::log), nullptr};
            if (d.stream_buffer_mb > 0)
              data.stream = stream_maker(train, target, d.stream_buffer_mb);
            return data;
          },
          [](const exadnn::train::DataSpec& d, bool train) { return files(d, train); },
          [](const exadnn::train::DataSpec& d, bool train) {
            const FileLayout layout = FileLayout::from_config(d.layout);
            return files(d, train) + (layout.format == FileLayout::Format::shards
                                          ? " (labels)"
                                          : " (attribute " + layout.space_group + ")");
          },
          FileLayout::config_keys(),
          class_names(target)};
}

const bool registered = [] {
  exadnn::train::datasets().add("cbed-space-group", shard_kind(Target::space_group));
  exadnn::train::datasets().add("cbed-crystal-system", shard_kind(Target::crystal_system));
  return true;
}();

}  // namespace
}  // namespace cbed::shard
