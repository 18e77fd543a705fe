#include "model_builder.h"

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/nn/activation.h"
#include "exadnn/nn/batch_norm.h"
#include "exadnn/nn/conv.h"
#include "exadnn/nn/linear.h"
#include "exadnn/nn/pooling.h"
#include "exadnn/ops/factories.h"

namespace exadnn::cli {

namespace {

std::shared_ptr<nn::Module> make_layer(const LayerSpec& s, const Shape& in) {
  const auto need_rank = [&](int64_t rank, const char* hint) {
    EXADNN_CHECK(in.size() == rank, "model", "layer ", s.kind, " (line ", s.line,
                 ") receives examples of shape ", in, "; ", hint);
  };
  if (s.kind == "linear") {
    need_rank(1, "add 'flatten' before it");
    return std::make_shared<nn::Linear>(in[0], s.out);
  }
  if (s.kind == "conv2d") {
    need_rank(3, "it needs [channels, height, width] images");
    return std::make_shared<nn::Conv2d>(nn::Conv2dOptions(in[0], s.out, s.kernel)
                                            .stride(s.stride > 0 ? s.stride : 1)
                                            .padding(s.padding));
  }
  if (s.kind == "maxpool2d" || s.kind == "avgpool2d") {
    need_rank(3, "it needs [channels, height, width] images");
    const Size2 stride = s.stride > 0 ? s.stride : s.kernel;
    if (s.kind == "maxpool2d") return std::make_shared<nn::MaxPool2d>(s.kernel, stride, s.padding);
    return std::make_shared<nn::AvgPool2d>(s.kernel, stride, s.padding);
  }
  if (s.kind == "batchnorm") {
    if (in.size() == 3) return std::make_shared<nn::BatchNorm2d>(in[0]);
    need_rank(1, "batchnorm takes [features] or [channels, height, width]");
    return std::make_shared<nn::BatchNorm1d>(in[0]);
  }
  if (s.kind == "dropout") return std::make_shared<nn::Dropout>(s.p);
  if (s.kind == "relu") return std::make_shared<nn::ReLU>();
  if (s.kind == "leaky_relu") return std::make_shared<nn::LeakyReLU>(s.slope);
  if (s.kind == "gelu") return std::make_shared<nn::GELU>();
  if (s.kind == "sigmoid") return std::make_shared<nn::Sigmoid>();
  if (s.kind == "tanh") return std::make_shared<nn::Tanh>();
  if (s.kind == "flatten") return std::make_shared<nn::Flatten>();
  throw Error("model", detail::cat("unknown layer '", s.kind, "' (line ", s.line, ")"));
}

}  // namespace

std::shared_ptr<nn::Sequential> build_model(const std::vector<LayerSpec>& layers,
                                            const Shape& sample_shape, MemoryBudget* budget) {
  auto net = std::make_shared<nn::Sequential>();
  Shape shape = sample_shape;
  NoGradGuard no_grad;
  for (const LayerSpec& spec : layers) {
    if (budget) budget->add_layer(spec, layer_parameter_count(spec, shape), 0);
    auto layer = make_layer(spec, shape);
    // Push one example through to learn the next layer's input shape.
    Shape batch{1};
    for (int64_t d : shape) batch.push_back(d);
    layer->eval();
    Tensor y;
    try {
      y = layer->forward(zeros(batch));
    } catch (const Error& e) {
      throw Error("model", detail::cat("layer ", spec.kind, " (line ", spec.line,
                                       ") cannot take examples of shape ", shape, ": ", e.what()));
    }
    layer->train();
    shape = Shape();
    for (int64_t d = 1; d < y.dim(); ++d) shape.push_back(y.size(d));
    EXADNN_CHECK(shape.numel() > 0, "model", "layer ", spec.kind, " (line ", spec.line,
                 ") produces empty examples of shape ", shape);
    if (budget) budget->add_layer(spec, 0, shape.numel());
    net->push_back(layer);
  }
  return net;
}

}  // namespace exadnn::cli
