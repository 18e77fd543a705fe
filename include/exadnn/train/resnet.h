// Residual networks (He et al., "Deep Residual Learning for Image Recognition", CVPR 2016):
// the basic block (two 3x3 convolutions) of ResNet-18/34 and the bottleneck block (1x1, 3x3,
// 1x1 with 4x expansion) of ResNet-50, each with batch norm and a 1x1 projection shortcut where
// the shape changes, and the whole network: stem, four stages, global average pooling, linear
// head. The config's model list names them as layers `resnet`, `basic_block` and `bottleneck`.
#pragma once

#include <cstdint>
#include <memory>

#include "exadnn/nn/batch_norm.h"
#include "exadnn/nn/container.h"
#include "exadnn/nn/conv.h"
#include "exadnn/train/layers.h"

namespace exadnn::train {

/// relu(body(x) + shortcut(x)). Basic: body = conv3x3(stride)-bn-relu-conv3x3-bn, out channels
/// `planes`. Bottleneck: body = conv1x1-bn-relu-conv3x3(stride)-bn-relu-conv1x1-bn, out channels
/// 4·planes (the stride on the 3x3, as torchvision's "ResNet v1.5"). The shortcut is the input
/// itself when stride is 1 and the channels agree, else conv1x1(stride)-bn (the projection).
/// x: [N, in, H, W] -> [N, out, ceil(H / stride), ceil(W / stride)]. Convolutions have no bias
/// (batch norm follows each) and are initialised He-normal over fan-out.
class ResidualBlock : public nn::Module {
 public:
  enum class Kind { basic, bottleneck };
  ResidualBlock(Kind kind, int64_t in_channels, int64_t planes, int64_t stride);
  Tensor forward(const Tensor& x) override;
  std::string name() const override;
  std::string extra_repr() const override;
  int64_t out_channels() const { return out_; }
  /// Output channels per `planes`: 1 (basic) or 4 (bottleneck).
  static int64_t expansion(Kind kind) { return kind == Kind::basic ? 1 : 4; }

 private:
  Kind kind_;
  int64_t in_, out_, stride_;
  std::shared_ptr<nn::Sequential> body_;
  std::shared_ptr<nn::Sequential> shortcut_;  ///< null: the identity
};

/// A ResNet's shape. depth 18 and 34 use basic blocks ([2,2,2,2], [3,4,6,3] per stage), 50
/// bottlenecks ([3,4,6,3]); the stages have width, 2·width, 4·width, 8·width planes (strides 1,
/// 2, 2, 2). The stem is conv7x7/2-bn-relu-maxpool3x3/2 (stem_kernel 7, the paper's, for large
/// images) or conv3x3/1-bn-relu (stem_kernel 3, for small ones such as 32x32 or 64x64).
struct ResNetOptions {
  int64_t depth = 18;  ///< 18, 34 or 50
  int64_t in_channels = 3;
  int64_t classes = 1000;
  int64_t width = 64;       ///< planes of the first stage
  int64_t stem_kernel = 7;  ///< 7 or 3
};

/// The network: [N, in_channels, H, W] -> logits [N, classes]. An Error names a depth other than
/// 18/34/50, a stem other than 7/3, or a count below 1.
std::shared_ptr<nn::Sequential> make_resnet(const ResNetOptions& options);

/// Parameters of make_resnet(options), counted from the architecture without building it
/// (ResNet-18/34/50 at 3 channels and 1000 classes: 11 689 512 / 21 797 672 / 25 557 032).
int64_t resnet_parameter_count(const ResNetOptions& options);

/// The layer kinds `resnet` {depth, classes, width, stem}, `basic_block` {out, stride} and
/// `bottleneck` {planes, stride} of the model list (registered by layers()).
LayerKind resnet_layer_kind();
LayerKind residual_block_layer_kind(ResidualBlock::Kind kind);

}  // namespace exadnn::train
