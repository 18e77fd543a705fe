#include "exadnn/train/model_builder.h"

#include "exadnn/autograd/grad_mode.h"
#include "exadnn/ops/factories.h"
#include "exadnn/train/layers.h"

namespace exadnn::train {

namespace {
// An Error's message without its "exadnn: <where>: " head.
std::string message_of(const Error& e) {
  const std::string head = "exadnn: " + e.where() + ": ";
  const std::string text = e.what();
  return text.rfind(head, 0) == 0 ? text.substr(head.size()) : text;
}
}  // namespace

std::shared_ptr<nn::Sequential> build_model(const std::vector<LayerSpec>& layers,
                                            const Shape& sample_shape, MemoryBudget* budget) {
  auto net = std::make_shared<nn::Sequential>();
  Shape shape = sample_shape;
  NoGradGuard no_grad;
  for (const LayerSpec& spec : layers) {
    const train::LayerKind& kind = train::layers().at(spec.kind);
    if (budget && kind.parameters)
      budget->add_layer(spec, kind.parameters(spec.settings, shape), 0);
    std::shared_ptr<nn::Module> layer;
    try {
      layer = kind.make(spec.settings, shape);
    } catch (const Error& e) {
      throw Error("model",
                  detail::cat("layer ", spec.kind, " (line ", spec.line, ") ", message_of(e)));
    }
    // Push one example through to learn the next layer's input shape.
    Shape batch{1};
    for (int64_t d : shape) batch.push_back(d);
    layer->eval();
    Tensor y;
    try {
      y = layer->forward(zeros(batch));
    } catch (const Error& e) {
      // Usually the shape, but the cause may lie elsewhere (a bad EXADNN_* setting): name both.
      throw Error("model", detail::cat("layer ", spec.kind, " (line ", spec.line,
                                       ") failed on an example of shape ", shape, ": ", e.where(),
                                       ": ", message_of(e)));
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

}  // namespace exadnn::train
