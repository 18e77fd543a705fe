// ResNet-18/34/50: residual blocks, the network, and their layer kinds.
#include "exadnn/train/resnet.h"

#include <cmath>
#include <vector>

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/nn/activation.h"
#include "exadnn/nn/init.h"
#include "exadnn/nn/linear.h"
#include "exadnn/nn/pooling.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/operators.h"

namespace exadnn::train {
namespace {

constexpr const char* kWhere = "resnet";
constexpr int64_t kMaxChannels = int64_t{1} << 20;
constexpr int64_t kMaxStride = 64;

// A convolution without bias (batch norm follows), He-normal over fan-out as in the paper's
// reference code: N(0, 2 / (out·k·k)).
std::shared_ptr<nn::Conv2d> conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  auto c = std::make_shared<nn::Conv2d>(
      nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
  NoGradGuard no_grad;
  nn::init::normal_(c->weight, 0.0, std::sqrt(2.0 / static_cast<double>(out * kernel * kernel)));
  return c;
}

std::shared_ptr<nn::Module> bn(int64_t channels) {
  return std::make_shared<nn::BatchNorm2d>(channels);
}
std::shared_ptr<nn::Module> relu_layer() {
  return std::make_shared<nn::ReLU>();
}

// Blocks per stage of each depth.
std::vector<int64_t> stage_blocks(int64_t depth) {
  if (depth == 18) return {2, 2, 2, 2};
  if (depth == 34 || depth == 50) return {3, 4, 6, 3};
  throw Error(kWhere, detail::cat("depth ", depth, " is not a ResNet depth (allowed: 18, 34, 50)"));
}
ResidualBlock::Kind block_kind(int64_t depth) {
  return depth == 50 ? ResidualBlock::Kind::bottleneck : ResidualBlock::Kind::basic;
}

void check_options(const ResNetOptions& o) {
  stage_blocks(o.depth);
  EXADNN_CHECK(o.stem_kernel == 7 || o.stem_kernel == 3, kWhere, "stem ", o.stem_kernel,
               " (allowed: 7, the paper's 7x7/2 + max pool, or 3, a 3x3/1 for small images)");
  EXADNN_CHECK(o.in_channels >= 1 && o.classes >= 1 && o.width >= 1, kWhere, "in_channels ",
               o.in_channels, ", classes ", o.classes, ", width ", o.width,
               ": each must be at least 1");
}

// Parameters of one block (convolutions without bias, 2 per batch-norm channel).
int64_t block_parameters(ResidualBlock::Kind kind, int64_t in, int64_t planes, int64_t stride) {
  const int64_t out = planes * ResidualBlock::expansion(kind);
  int64_t n =
      kind == ResidualBlock::Kind::basic
          ? 9 * in * planes + 2 * planes + 9 * planes * planes + 2 * planes
          : in * planes + 2 * planes + 9 * planes * planes + 2 * planes + planes * out + 2 * out;
  if (stride != 1 || in != out) n += in * out + 2 * out;  // the projection
  return n;
}

// The residual blocks of a ResNet in order: stage s has width·2^s planes, and its first block
// strides 2 (but the first stage's) and takes the previous stage's channels.
struct BlockShape {
  ResidualBlock::Kind kind;
  int64_t in, planes, stride;
};
std::vector<BlockShape> block_shapes(const ResNetOptions& o) {
  const ResidualBlock::Kind kind = block_kind(o.depth);
  const std::vector<int64_t> blocks = stage_blocks(o.depth);
  std::vector<BlockShape> out;
  int64_t channels = o.width;
  for (size_t stage = 0; stage < blocks.size(); ++stage) {
    const int64_t planes = o.width << stage;
    for (int64_t b = 0; b < blocks[stage]; ++b) {
      out.push_back({kind, channels, planes, (stage > 0 && b == 0) ? 2 : 1});
      channels = planes * ResidualBlock::expansion(kind);
    }
  }
  return out;
}

}  // namespace

ResidualBlock::ResidualBlock(Kind kind, int64_t in_channels, int64_t planes, int64_t stride)
    : kind_(kind), in_(in_channels), out_(planes * expansion(kind)), stride_(stride) {
  EXADNN_CHECK(in_channels >= 1 && planes >= 1 && stride >= 1, "ResidualBlock", "in_channels ",
               in_channels, ", planes ", planes, ", stride ", stride, ": each must be at least 1");
  body_ = std::make_shared<nn::Sequential>();
  if (kind == Kind::basic) {
    for (auto m : std::vector<std::shared_ptr<nn::Module>>{conv(in_, planes, 3, stride), bn(planes),
                                                           relu_layer(), conv(planes, planes, 3, 1),
                                                           bn(planes)})
      body_->push_back(m);
  } else {
    for (auto m : std::vector<std::shared_ptr<nn::Module>>{
             conv(in_, planes, 1, 1), bn(planes), relu_layer(), conv(planes, planes, 3, stride),
             bn(planes), relu_layer(), conv(planes, out_, 1, 1), bn(out_)})
      body_->push_back(m);
  }
  register_module("body", body_);
  if (stride != 1 || in_ != out_) {
    shortcut_ = std::make_shared<nn::Sequential>();
    shortcut_->push_back(conv(in_, out_, 1, stride));
    shortcut_->push_back(bn(out_));
    register_module("shortcut", shortcut_);
  }
}

Tensor ResidualBlock::forward(const Tensor& x) {
  EXADNN_CHECK(x.dim() == 4 && x.size(1) == in_, name(), "takes [N, ", in_, ", H, W] inputs, got ",
               x.shape());
  const Tensor identity = shortcut_ ? shortcut_->forward(x) : x;
  return exadnn::add_relu(body_->forward(x), identity);
}

std::string ResidualBlock::name() const {
  return kind_ == Kind::basic ? "BasicBlock" : "Bottleneck";
}

std::string ResidualBlock::extra_repr() const {
  return detail::cat("in=", in_, ", out=", out_, ", stride=", stride_,
                     shortcut_ ? ", projection" : "");
}

std::shared_ptr<nn::Sequential> make_resnet(const ResNetOptions& o) {
  check_options(o);
  auto net = std::make_shared<nn::Sequential>();
  if (o.stem_kernel == 7) {
    net->push_back(conv(o.in_channels, o.width, 7, 2));
    net->push_back(bn(o.width));
    net->push_back(relu_layer());
    net->push_back(std::make_shared<nn::MaxPool2d>(3, 2, 1));
  } else {
    net->push_back(conv(o.in_channels, o.width, 3, 1));
    net->push_back(bn(o.width));
    net->push_back(relu_layer());
  }
  int64_t channels = o.width;
  for (const BlockShape& b : block_shapes(o)) {
    auto block = std::make_shared<ResidualBlock>(b.kind, b.in, b.planes, b.stride);
    channels = block->out_channels();
    net->push_back(block);
  }
  net->push_back(std::make_shared<nn::AdaptiveAvgPool2d>(1));
  net->push_back(std::make_shared<nn::Flatten>());
  net->push_back(std::make_shared<nn::Linear>(channels, o.classes));
  return net;
}

int64_t resnet_parameter_count(const ResNetOptions& o) {
  check_options(o);
  int64_t n = o.in_channels * o.width * o.stem_kernel * o.stem_kernel + 2 * o.width;
  int64_t channels = o.width;
  for (const BlockShape& b : block_shapes(o)) {
    n += block_parameters(b.kind, b.in, b.planes, b.stride);
    channels = b.planes * ResidualBlock::expansion(b.kind);
  }
  return n + (channels + 1) * o.classes;
}

namespace {
void need_images(const Shape& in) {
  if (in.size() != 3)
    throw Error("model", detail::cat("receives examples of shape ", in,
                                     "; it needs [channels, height, width] images"));
}
ResNetOptions resnet_options(const LayerSettings& s, const Shape& in) {
  need_images(in);
  return {s.count("depth"), in[0], s.count("classes"), s.count("width", 64), s.count("stem", 7)};
}
}  // namespace

LayerKind resnet_layer_kind() {
  return {{{"depth", LayerSetting::count(18, 50)},
           {"classes", LayerSetting::count(1, kMaxChannels)},
           {"width", LayerSetting::count(1, kMaxChannels)},
           {"stem", LayerSetting::count(3, 7)}},
          {"depth", "classes"},
          [](const LayerSettings& s, const Shape& in) -> std::shared_ptr<nn::Module> {
            return make_resnet(resnet_options(s, in));
          },
          [](const LayerSettings& s, const Shape& in) -> int64_t {
            return in.size() == 3 ? resnet_parameter_count(resnet_options(s, in)) : 0;
          }};
}

LayerKind residual_block_layer_kind(ResidualBlock::Kind kind) {
  const char* width = kind == ResidualBlock::Kind::basic ? "out" : "planes";
  return {
      {{width, LayerSetting::count(1, kMaxChannels)},
       {"stride", LayerSetting::count(1, kMaxStride)}},
      {width},
      [kind, width](const LayerSettings& s, const Shape& in) -> std::shared_ptr<nn::Module> {
        need_images(in);
        return std::make_shared<ResidualBlock>(kind, in[0], s.count(width), s.count("stride", 1));
      },
      [kind, width](const LayerSettings& s, const Shape& in) -> int64_t {
        return in.size() == 3 ? block_parameters(kind, in[0], s.count(width), s.count("stride", 1))
                              : 0;
      }};
}

}  // namespace exadnn::train
