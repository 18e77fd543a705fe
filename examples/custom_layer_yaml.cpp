// A layer of one's own, registered by name from C++ and used in a YAML config like the built-in
// ones: here Swish with a learnable slope per feature, y = x · sigmoid(β ⊙ x) (Ramachandran et
// al. 2017), in the Fashion-MNIST MLP. The Trainer runs the config; a hook prints each epoch.
//   custom_layer_yaml [FASHION_MNIST_DIR] [EPOCHS]
#include <exadnn/exadnn.h>
#include <exadnn/train/config.h>
#include <exadnn/train/layers.h>
#include <exadnn/train/trainer.h>

#include <cstdio>
#include <string>

using namespace exadnn;

// Swish with one learnable β per feature: [B, F] -> [B, F].
class LearnableSwish : public nn::Module {
 public:
  explicit LearnableSwish(int64_t features) : beta_(ones({features})) {
    beta_.requires_grad_();
    register_parameter("beta", &beta_);
  }
  Tensor forward(const Tensor& x) override { return x * sigmoid(x * beta_); }
  std::string name() const override { return "LearnableSwish"; }

 private:
  Tensor beta_;
};

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
  const std::string epochs = argc > 2 ? argv[2] : "2";
  // "swish": no settings; it takes flat examples [F] and gives [F] (the builder's shape check).
  train::layers().add("swish",
                      {{},
                       {},
                       [](const train::LayerSettings&, const Shape& in) {
                         EXADNN_CHECK(in.size() == 1, "swish", "takes flat examples, got ", in,
                                      " (put flatten first)");
                         return std::make_shared<LearnableSwish>(in[0]);
                       },
                       [](const train::LayerSettings&, const Shape& in) { return in[0]; }});
  const train::TrainConfig config = train::parse_config(R"(
data: {dataset: fashion-mnist, path: )" + dir + R"(, batch_size: 128}
model:
  - flatten
  - linear: {out: 256}
  - swish
  - linear: {out: 10}
optimizer: {name: adam, lr: 0.001}
threads: 2
)",
                                                        "custom_layer.yaml", {"epochs=" + epochs});
  train::Trainer trainer(config);
  std::printf("%s\n", trainer.model().repr().c_str());
  trainer.on_epoch([](const train::EpochRecord& e) {
    std::printf("epoch %lld: train loss %.4f, test accuracy %.2f%%\n",
                static_cast<long long>(e.epoch), e.train_loss, 100.0 * e.test_accuracy);
  });
  const double accuracy = trainer.fit();
  return accuracy > 0.8 ? 0 : 1;  // 1 epoch of this MLP reaches about 84 %
}
