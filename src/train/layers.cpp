// The built-in layer kinds of the config's model list.
#include "exadnn/train/layers.h"

#include <cmath>

#include "exadnn/nn/activation.h"
#include "exadnn/nn/batch_norm.h"
#include "exadnn/nn/container.h"
#include "exadnn/nn/conv.h"
#include "exadnn/nn/linear.h"
#include "exadnn/nn/pooling.h"
#include "exadnn/ops/reduction.h"
#include "exadnn/train/resnet.h"

namespace exadnn::train {

namespace {

// Bounds of the counts: far above any real layer, low enough that a typo is caught before it
// allocates (the memory estimate catches the rest).
constexpr int64_t kMaxFeatures = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxWindow = 4096;  // kernel, stride, padding

void need_rank(const Shape& in, int64_t rank, const char* hint) {
  if (static_cast<int64_t>(in.size()) != rank)
    throw Error("model", detail::cat("receives examples of shape ", in, "; ", hint));
}
constexpr const char* kImages = "it needs [channels, height, width] images";

template <class M, class... Args>
std::shared_ptr<nn::Module> make(Args&&... args) {
  return std::make_shared<M>(std::forward<Args>(args)...);
}

// A layer without settings or parameters that takes any shape.
LayerKind plain(std::function<std::shared_ptr<nn::Module>()> f) {
  return {{}, {}, [f](const LayerSettings&, const Shape&) { return f(); }, nullptr};
}

// [N, C, H, W] → [N, C]: the mean of each channel over the image (the classifier head of a
// convolutional network whose feature maps keep a size that depends on the input).
class GlobalAvgPool : public nn::Module {
 public:
  Tensor forward(const Tensor& x) override {
    EXADNN_CHECK(x.dim() == 4, name(), "expects [N, C, H, W], got ", x.shape());
    return mean(x, {2, 3});
  }
  std::string name() const override { return "GlobalAvgPool"; }
};

LayerKind pooling(bool max) {
  return {{{"kernel", LayerSetting::count(1, kMaxWindow)},
           {"stride", LayerSetting::count(0, kMaxWindow)},  // 0: the kernel
           {"padding", LayerSetting::count(0, kMaxWindow)}},
          {"kernel"},
          [max](const LayerSettings& s, const Shape& in) {
            need_rank(in, 3, kImages);
            const int64_t kernel = s.count("kernel");
            const Size2 stride = s.count("stride") > 0 ? s.count("stride") : kernel;
            if (max) return make<nn::MaxPool2d>(kernel, stride, s.count("padding"));
            return make<nn::AvgPool2d>(kernel, stride, s.count("padding"));
          },
          nullptr};
}

Registry<LayerKind>* make_builtin() {
  auto* r = new Registry<LayerKind>("layer");
  r->add("linear", {{{"out", LayerSetting::count(1, kMaxFeatures)}},
                    {"out"},
                    [](const LayerSettings& s, const Shape& in) {
                      need_rank(in, 1, "add 'flatten' before it");
                      return make<nn::Linear>(in[0], s.count("out"));
                    },
                    [](const LayerSettings& s, const Shape& in) -> int64_t {
                      return in.size() == 1 ? (in[0] + 1) * s.count("out") : 0;
                    }});
  r->add("conv2d",
         {{{"out", LayerSetting::count(1, kMaxFeatures)},
           {"kernel", LayerSetting::count(1, kMaxWindow)},
           {"stride", LayerSetting::count(0, kMaxWindow)},  // 0: 1
           {"padding", LayerSetting::count(0, kMaxWindow)}},
          {"out", "kernel"},
          [](const LayerSettings& s, const Shape& in) {
            need_rank(in, 3, kImages);
            const int64_t stride = s.count("stride") > 0 ? s.count("stride") : 1;
            return make<nn::Conv2d>(nn::Conv2dOptions(in[0], s.count("out"), s.count("kernel"))
                                        .stride(stride)
                                        .padding(s.count("padding")));
          },
          [](const LayerSettings& s, const Shape& in) -> int64_t {
            const int64_t k = s.count("kernel");
            return in.size() == 3 ? s.count("out") * (in[0] * k * k + 1) : 0;
          }});
  r->add("maxpool2d", pooling(true));
  r->add("avgpool2d", pooling(false));
  r->add("global_avgpool", {{},
                            {},
                            [](const LayerSettings&, const Shape& in) {
                              need_rank(in, 3, kImages);
                              return make<GlobalAvgPool>();
                            },
                            nullptr});
  r->add("batchnorm", {{},
                       {},
                       [](const LayerSettings&, const Shape& in) {
                         if (in.size() == 3) return make<nn::BatchNorm2d>(in[0]);
                         need_rank(in, 1,
                                   "batchnorm takes [features] or [channels, height, width]");
                         return make<nn::BatchNorm1d>(in[0]);
                       },
                       [](const LayerSettings&, const Shape& in) -> int64_t {
                         return in.empty() ? 0 : 2 * in[0];
                       }});
  const double below_one = std::nextafter(1.0, 0.0);
  r->add("dropout",
         {{{"p", LayerSetting::real(0, below_one)}},
          {},
          [](const LayerSettings& s, const Shape&) { return make<nn::Dropout>(s.real("p", 0.5)); },
          nullptr});
  r->add("leaky_relu", {{{"slope", LayerSetting::real(-1e6, 1e6)}},
                        {},
                        [](const LayerSettings& s, const Shape&) {
                          return make<nn::LeakyReLU>(s.real("slope", 0.01));
                        },
                        nullptr});
  r->add("relu", plain([] { return make<nn::ReLU>(); }));
  r->add("gelu", plain([] { return make<nn::GELU>(); }));
  r->add("sigmoid", plain([] { return make<nn::Sigmoid>(); }));
  r->add("tanh", plain([] { return make<nn::Tanh>(); }));
  r->add("flatten", plain([] { return make<nn::Flatten>(); }));
  r->add("resnet", resnet_layer_kind());  // resnet.h
  r->add("basic_block", residual_block_layer_kind(ResidualBlock::Kind::basic));
  r->add("bottleneck", residual_block_layer_kind(ResidualBlock::Kind::bottleneck));
  return r;
}

}  // namespace

Registry<LayerKind>& layers() {
  static Registry<LayerKind>* table = make_builtin();  // never destroyed: used at exit too
  return *table;
}

}  // namespace exadnn::train
