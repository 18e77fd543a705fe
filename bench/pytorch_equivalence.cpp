// exadnn side of bench/check_pytorch_equivalence.sh: reads what `pytorch_equivalence.py
// reference` wrote into DIR (PyTorch's initial ResNet-18 state, the batches, the test images),
// loads that state into train::make_resnet's ResNet-18 in f64, trains the same SGD steps (lr 0.05,
// momentum 0.9, batch 128, cross-entropy) and writes its losses, first-step gradients, final state
// and the test images' eval- and train-mode logits under DIR/exadnn/, in the file layout that
// pytorch_equivalence.py describes (raw little-endian f64, one file per state-dict entry).
//
//   exadnn_pytorch_equivalence DIR
//
// The state-dict names are PyTorch's (Sequential indices, body/shortcut): load_state_dict is
// strict, so a name or shape of either side without its twin on the other is an Error.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "equivalence_io.h"
#include "exadnn/exadnn.h"
#include "exadnn/train/resnet.h"

using namespace exadnn;

namespace {

constexpr int64_t kBatch = 128, kTest = 256, kPixels = 3 * 64 * 64;

using namespace equivalence_io;  // read, read_f64, read_state, rows, write_f64

void run(const std::string& dir) {
  const std::string out = dir + "/exadnn";
  std::filesystem::create_directories(out + "/grad0");
  std::filesystem::create_directories(out + "/final");
  auto net = train::make_resnet(
      {.depth = 18, .in_channels = 3, .classes = 10, .width = 64, .stem_kernel = 7});
  net->to(DType::f64);
  net->load_state_dict(read_state(dir));  // strict: the same names and shapes, one to one
  const std::vector<double> x = read<double>(dir + "/x.f64");    // [steps·128, 3, 64, 64]
  const std::vector<int64_t> y = read<int64_t>(dir + "/y.i64");  // [steps·128]
  const int64_t steps = static_cast<int64_t>(y.size()) / kBatch;
  EXADNN_CHECK(steps >= 1 && static_cast<int64_t>(x.size()) == steps * kBatch * kPixels,
               "pytorch_equivalence", "x.f64 and y.i64 do not hold whole batches of ", kBatch);
  optim::SGD sgd(net->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  std::vector<double> losses;
  net->train();
  for (int64_t s = 0; s < steps; ++s) {
    const Tensor images = rows(x, s * kBatch, kBatch, kPixels, {kBatch, 3, 64, 64});
    const Tensor labels = rows(y, s * kBatch, kBatch, 1, {kBatch});
    Tensor loss = nn::cross_entropy(net->forward(images), labels);
    sgd.zero_grad();
    loss.backward();
    if (s == 0)
      for (const auto& [name, p] : net->named_parameters())
        write_f64(out + "/grad0/" + name + ".f64", p.grad());
    sgd.step();
    losses.push_back(loss.item<double>());
  }
  write_f64(out + "/loss.f64", from_vector<double>(losses));
  const StateDict final_state = net->state_dict();
  for (const auto& [name, t] : final_state) write_f64(out + "/final/" + name + ".f64", t);
  const Tensor test_x = read_f64(dir + "/test_x.f64", {kTest, 3, 64, 64});
  NoGradGuard no_grad;
  net->eval();
  write_f64(out + "/eval_logits.f64", net->forward(test_x));  // [256, 10]
  net->train();
  write_f64(out + "/train_logits.f64", net->forward(test_x));  // batch statistics
  std::printf("exadnn losses:");
  for (double l : losses) std::printf(" %.9f", l);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (written by pytorch_equivalence.py reference)\n", argv[0]);
    return 2;
  }
  try {
    run(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
