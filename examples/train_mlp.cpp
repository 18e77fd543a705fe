// The Fashion-MNIST MLP of configs/fashion_mnist_mlp.yaml, built and trained through the C++ API.
#include <exadnn/exadnn.h>

#include <cstdio>

using namespace exadnn;

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
  set_num_threads(2);
  manual_seed(0);
  auto train = std::make_shared<data::TensorDataset>(data::load_mnist(dir, data::Split::train));
  auto test = data::load_mnist(dir, data::Split::test);
  auto net = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(784, 512),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(512, 256),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 10)});
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  data::DataLoader loader(train, data::DataLoaderOptions().batch_size(128).shuffle().seed(0));
  for (int epoch = 1; epoch <= 3; ++epoch) {
    for (const data::Batch& batch : loader) {
      Tensor loss = nn::cross_entropy(net->forward(batch.inputs), batch.targets);
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    NoGradGuard no_grad;
    const Tensor hits = eq(argmax(net->forward(test.inputs()), 1), test.targets());
    std::printf("epoch %d: test accuracy %.2f%%\n", epoch, 100.0 * mean(hits).item<double>());
  }
}
