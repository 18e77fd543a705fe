// parallel: {spatial: S} (mpi_strategies.h): every image of a batch split along its height over the
// S ranks of a spatial group (the tensor axis of a data × 1 × S ProcessGrid), each rank holding a
// band of H/S rows of every feature map until the model's flatten or global_avgpool; the
// D = ranks / S replicas each read their shard of every epoch and average gradients.
//
// The loader reads each rank's band of rows only (DataLoaderOptions::height_band).
//
// The config's layer list maps one to one (same index, same parameter names) onto:
//   conv2d → dist::SpatialConv2d, maxpool2d → dist::SpatialMaxPool2d (halos exchanged),
//   batchnorm on images → dist::SpatialBatchNorm2d (statistics over the whole image),
//   avgpool2d (kernel ≤ stride, no padding: needs no halo) and the activations → unchanged on the
//   band, flatten → the bands gathered back into the whole [N, C, H, W] (dist::gather_from_group:
//   backward keeps the band's rows) and flattened, or global_avgpool → dist::SpatialGlobalAvgPool
//   (each band's sums allreduced over the group: [N, C] on every rank, the whole feature map never
//   gathered); every layer after either runs replicated.
// config_parallel.cpp refuses other layers and sizes the split cannot reproduce; for_each_batch
// checks the image height against the bands before the first step. Replicated weights used by every
// band receive the sum of the bands' gradients (the layers' copy_to_group), so each rank's
// gradients are the whole image's, then averaged over the replicas.
//
// Every rank builds the whole model (same seed); the split layers take its weights (a resumed
// checkpoint's) in attach() and give them back after each epoch (the root scores and saves the
// whole model). The split model's parameters are the whole model's in the same order, so the
// optimizer state is in the one-process layout as it is.
#include "exadnn/autograd/grad_mode.h"
#include "exadnn/dist/parallel_ops.h"
#include "exadnn/dist/spatial_parallel.h"
#include "exadnn/nn/container.h"
#include "exadnn/nn/conv.h"
#include "mpi_strategies.h"
#include "mpi_strategy.h"

namespace exadnn::train::internal {
namespace {

// [N, C, h, W] bands → the whole image [N, C, S·h, W] on every rank → [N, C·H·W].
class SpatialFlatten : public nn::Module {
 public:
  explicit SpatialFlatten(dist::Communicator comm) : comm_(std::move(comm)) {}
  Tensor forward(const Tensor& x) override {
    EXADNN_CHECK(x.dim() == 4, name(), "expects [N, C, h, W] bands, got ", x.shape());
    return dist::gather_from_group(x, comm_, 2).flatten(1);
  }
  std::string name() const override { return "SpatialFlatten"; }

 private:
  dist::Communicator comm_;
};

// A conv2d's or pooling's window along the height (the config's defaults filled in).
struct Window {
  int64_t kernel, stride, padding;
};
Window window_of(const LayerSpec& l) {
  const int64_t k = l.settings.count("kernel"), s = l.settings.count("stride");
  return {k, s > 0 ? s : (l.kind == "conv2d" ? 1 : k), l.settings.count("padding")};
}

class SpatialStrategy : public ModelSplitStrategy {
 public:
  SpatialStrategy(const MpiSpec& spec, const ParallelSpec& parallel, std::vector<LayerSpec> layers)
      : ModelSplitStrategy(
            spec, {dist::Communicator::world().size() / parallel.spatial, 1, parallel.spatial}),
        layers_(std::move(layers)) {}

  std::unique_ptr<optim::Optimizer> make_optimizer(const std::shared_ptr<nn::Module>& model,
                                                   const MakeOptimizer& make) override {
    take_model(model, "spatial");
    EXADNN_CHECK(whole_->size() == layers_.size(), "train", "'parallel.spatial' maps the config's ",
                 layers_.size(), " layers onto the model, which has ", whole_->size());
    const dist::Communicator& group = grid_.tensor();
    split_ = std::make_shared<nn::Sequential>();
    bool banded = true;  // before the flatten: feature maps are bands of rows
    for (size_t i = 0; i < layers_.size(); ++i) {
      const LayerSpec& l = layers_[i];
      const std::shared_ptr<nn::Module>& layer = (*whole_)[i];
      std::shared_ptr<nn::Module> mine = layer;  // replicated, or unchanged on a band
      if (banded && l.kind == "conv2d") {
        const auto& conv = dynamic_cast<const nn::Conv2d&>(*layer);
        const Window w = window_of(l);
        mine = std::make_shared<dist::SpatialConv2d>(
            nn::Conv2dOptions(conv.weight.size(1), conv.weight.size(0), w.kernel)
                .stride(w.stride)
                .padding(w.padding)
                .bias(conv.bias.defined()),
            group);
      } else if (banded && l.kind == "maxpool2d") {
        const Window w = window_of(l);
        mine = std::make_shared<dist::SpatialMaxPool2d>(w.kernel, w.stride, w.padding, group);
      } else if (banded && l.kind == "batchnorm") {
        mine = std::make_shared<dist::SpatialBatchNorm2d>(layer->parameters()[0].size(0), group);
      } else if (banded && l.kind == "flatten") {
        mine = std::make_shared<SpatialFlatten>(group);
        banded = false;
      } else if (banded && l.kind == "global_avgpool") {
        mine = std::make_shared<dist::SpatialGlobalAvgPool>(group);
        banded = false;
      }
      split_->push_back(mine);
    }
    return make(split_->parameters());
  }
  // The model is in place (a resumed checkpoint's weights too): the split layers take it.
  void attach(const std::shared_ptr<nn::Module>&, const TrainingRecipe&) override {
    NoGradGuard no_grad;
    split_->load_state_dict(whole_->state_dict());
    split_->train();
  }
  // The image height against the bands, before the first step (every rank finds the same).
  void for_each_batch(data::DataLoader& loader, int64_t epoch,
                      const std::function<void(const data::Batch&)>& use) override {
    if (!checked_) check_height(loader.dataset().input_shape());
    checked_ = true;
    Strategy::for_each_batch(loader, epoch, use);
  }
  // This replica's shard of every epoch, and of each image only this rank's band of rows: the
  // loader reads [N, C, H/S, W] (the dataset reads the band alone where it can).
  data::DataLoaderOptions shard(data::DataLoaderOptions o) const override {
    return ModelSplitStrategy::shard(std::move(o))
        .height_band(grid_.tensor().rank(), grid_.shape().tensor);
  }
  bool runs_forward_backward() const override { return true; }
  double forward_backward(const data::Batch& batch, const LossFunction& loss) override {
    return train_on(*split_, batch.inputs, batch.targets, loss);  // inputs: this rank's band
  }
  EpochTotals combine(const EpochTotals& mine) override {
    NoGradGuard no_grad;  // the weights and running statistics back, for the root's score and save
    whole_->load_state_dict(split_->state_dict());
    return combine_replicas(mine);
  }
  std::string describe() const override {
    return detail::cat(world_.size(), " ranks: ", grid_.shape().tensor,
                       "-way spatial parallel (images split along their height into ",
                       grid_.shape().tensor, " bands up to the ", head_kind(), ") × ",
                       grid_.shape().data, " data-parallel");
  }

 private:
  // Walks the banded layers with the image height H: each conv/pool's input must split into S
  // bands of h rows, h divisible by its stride, its halos no taller than a band.
  void check_height(const Shape& sample) const {
    const int parts = grid_.shape().tensor;
    EXADNN_CHECK(sample.size() == 3, "train",
                 "'parallel.spatial' splits [channels, height, width] ",
                 "images; the dataset's examples have shape ", sample);
    int64_t height = sample[1];
    EXADNN_CHECK(height % parts == 0, "train", "'parallel.spatial: ", parts, "' splits the ",
                 height, "-row images into bands, and ", parts, " does not divide ", height);
    for (const LayerSpec& l : layers_) {
      if (l.kind == "flatten" || l.kind == "global_avgpool") return;
      if (l.kind != "conv2d" && l.kind != "maxpool2d" && l.kind != "avgpool2d") continue;
      const Window w = window_of(l);
      const int64_t top = w.padding, bottom = std::max<int64_t>(0, w.kernel - w.stride - w.padding);
      EXADNN_CHECK(height % parts == 0 && (height / parts) % w.stride == 0, "train",
                   "'parallel.spatial: ", parts, "': the ", l.kind, " at line ", l.line,
                   " receives ", height, "-row feature maps, which do not split into ", parts,
                   " bands of a multiple of its stride ", w.stride, " rows");
      EXADNN_CHECK(std::max(top, bottom) <= height / parts, "train", "'parallel.spatial: ", parts,
                   "': the ", l.kind, " at line ", l.line, " needs ", std::max(top, bottom),
                   " rows of its neighbours but its bands of ", height, "-row feature maps hold ",
                   height / parts, " (too small for ", parts, " bands)");
      height /= w.stride;
    }
  }

  // The layer that ends the bands: "flatten" or "global_avgpool" (config_parallel.cpp checked
  // that there is one).
  std::string head_kind() const {
    for (const LayerSpec& l : layers_)
      if (l.kind == "flatten" || l.kind == "global_avgpool") return l.kind;
    return "flatten";
  }

  std::vector<LayerSpec> layers_;  // the config's model list
  std::shared_ptr<nn::Sequential> split_;
  bool checked_ = false;
};

}  // namespace

std::unique_ptr<Strategy> make_spatial_strategy(const MpiSpec& spec, const ParallelSpec& parallel,
                                                const std::vector<LayerSpec>& layers) {
  return std::make_unique<SpatialStrategy>(spec, parallel, layers);
}

}  // namespace exadnn::train::internal
