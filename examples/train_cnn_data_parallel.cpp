// The Fashion-MNIST CNN of configs/fashion_mnist_cnn.yaml, trained data-parallel through the C++
// API: every rank reads its shard of each epoch, DataParallel averages the gradients while
// backward runs, and nothing else in the loop changes.
//   mpirun -np 2 build/examples/train_cnn_data_parallel [fashion-mnist folder] [epochs]
#include <exadnn/dist/data_parallel.h>
#include <exadnn/dist/environment.h>
#include <exadnn/exadnn.h>

#include <cstdio>
#include <string>

using namespace exadnn;

int main(int argc, char** argv) {
  dist::Environment mpi(&argc, &argv);
  const dist::Communicator world = dist::Communicator::world();
  const std::string dir = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
  const int epochs = argc > 2 ? std::stoi(argv[2]) : 2;
  manual_seed(0);  // the same initial weights everywhere (DataParallel broadcasts rank 0's anyway)
  auto train = std::make_shared<data::TensorDataset>(data::load_mnist(dir, data::Split::train));
  auto test = data::load_mnist(dir, data::Split::test);
  using Layers = std::initializer_list<std::shared_ptr<nn::Module>>;
  auto net = std::make_shared<nn::Sequential>(Layers{
      // x: [N, 1, 28, 28]
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions(1, 16, 5).padding(2)),   // [N, 16, 28, 28]
      std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),       // [N, 16, 14, 14]
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions(16, 32, 5).padding(2)),  // [N, 32, 14, 14]
      std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),       // [N, 32, 7, 7]
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(32 * 7 * 7, 10)});
  dist::DataParallel ddp(*net, world);  // gradients averaged over the ranks during backward
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  data::DataLoader loader(train,
                          data::DataLoaderOptions().batch_size(64).shuffle().seed(0).distributed(
                              world.rank(), world.size()));  // this rank's shard
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    loader.set_epoch(epoch - 1);
    for (const data::Batch& batch : loader) {
      Tensor loss = nn::cross_entropy(net->forward(batch.inputs), batch.targets);
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    if (world.rank() != 0) continue;  // every rank holds the same weights: one scores them
    NoGradGuard no_grad;
    net->eval();
    const Tensor hits = eq(argmax(net->forward(test.inputs()), 1), test.targets());
    net->train();
    std::printf("epoch %d on %d ranks: test accuracy %.2f%%\n", epoch, world.size(),
                100.0 * mean(hits).item<double>());
  }
}
