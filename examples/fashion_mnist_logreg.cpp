// The first main job: multinomial logistic regression on Fashion-MNIST, written with exadnn's
// autodiff API only (tensors, matmul, logsumexp, backward). Reads the gzip'd IDX files that
// Debian's dataset-fashion-mnist package installs, trains with mini-batch SGD and prints the test
// accuracy. (The training issue replaces this with `exadnn train` and the data layer's readers.)
//
//   usage: fashion_mnist_logreg [DATA_DIR] [EPOCHS]
#include <exadnn/exadnn.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

using namespace exadnn;

namespace {

// Reads a whole gzip file; throws naming the file on failure.
std::vector<unsigned char> read_gz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::vector<unsigned char> data;
  unsigned char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) data.insert(data.end(), buf, buf + n);
  const bool failed = n < 0;
  gzclose(f);
  if (failed) throw std::runtime_error(path + ": corrupt gzip stream");
  return data;
}

uint32_t big_endian(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

// IDX images (magic 0x803) -> f32 [N, rows*cols] scaled to [0, 1].
Tensor load_images(const std::string& path) {
  const auto raw = read_gz(path);
  if (raw.size() < 16 || big_endian(raw.data()) != 0x803)
    throw std::runtime_error(path + ": not an IDX image file (bad magic number)");
  const int64_t n = big_endian(&raw[4]), rows = big_endian(&raw[8]), cols = big_endian(&raw[12]);
  if (raw.size() != static_cast<size_t>(16 + n * rows * cols))
    throw std::runtime_error(path + ": truncated (header promises " + std::to_string(n) +
                             " images)");
  Tensor bytes = from_blob(const_cast<unsigned char*>(&raw[16]), {n, rows * cols}, DType::u8);
  return bytes.to(DType::f32) / 255.0;
}

// IDX labels (magic 0x801) -> i64 [N].
Tensor load_labels(const std::string& path) {
  const auto raw = read_gz(path);
  if (raw.size() < 8 || big_endian(raw.data()) != 0x801)
    throw std::runtime_error(path + ": not an IDX label file (bad magic number)");
  const int64_t n = big_endian(&raw[4]);
  if (raw.size() != static_cast<size_t>(8 + n))
    throw std::runtime_error(path + ": truncated (header promises " + std::to_string(n) +
                             " labels)");
  return from_blob(const_cast<unsigned char*>(&raw[8]), {n}, DType::u8).to(DType::i64);
}

// Mean softmax cross-entropy of logits [B, C] against integer labels [B].
Tensor cross_entropy(const Tensor& logits, const Tensor& labels) {
  const int64_t classes = logits.size(1);
  const Tensor one_hot = eq(labels.unsqueeze(1), arange(classes, DType::i64)).to(DType::f32);
  return mean(logsumexp(logits, {1}) - sum(logits * one_hot, {1}));
}

double accuracy(const Tensor& logits, const Tensor& labels) {
  return mean(eq(argmax(logits, 1), labels).to(DType::f64)).item<double>();
}

}  // namespace

int main(int argc, char** argv) try {
  const std::string dir = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
  const int epochs = argc > 2 ? std::stoi(argv[2]) : 5;
  std::printf("%s", runtime_info().c_str());

  const Tensor train_x = load_images(dir + "/train-images-idx3-ubyte.gz");
  const Tensor train_y = load_labels(dir + "/train-labels-idx1-ubyte.gz");
  const Tensor test_x = load_images(dir + "/t10k-images-idx3-ubyte.gz");
  const Tensor test_y = load_labels(dir + "/t10k-labels-idx1-ubyte.gz");
  if (train_x.size(0) != train_y.size(0))
    throw std::runtime_error("train images and labels differ in count");
  std::printf("data: %lld training and %lld test images of %lld pixels\n",
              static_cast<long long>(train_x.size(0)), static_cast<long long>(test_x.size(0)),
              static_cast<long long>(train_x.size(1)));

  manual_seed(0);
  const int64_t features = train_x.size(1), classes = 10, batch = 128;
  Tensor w = (randn({features, classes}) * 0.01).detach().requires_grad_();
  Tensor b = zeros({classes}, TensorOptions().requires_grad());
  const double lr = 0.1;

  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0.0;
    int64_t steps = 0;
    // Batches in file order (the IDX training set is stored shuffled).
    for (int64_t i = 0; i + batch <= train_x.size(0); i += batch) {
      const Tensor x = train_x.narrow(0, i, batch), y = train_y.narrow(0, i, batch);
      Tensor loss = cross_entropy(matmul(x, w) + b, y);
      w.zero_grad();
      b.zero_grad();
      loss.backward();
      NoGradGuard no_grad;
      add_(w, w.grad(), -lr);
      add_(b, b.grad(), -lr);
      loss_sum += loss.item<double>();
      ++steps;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    NoGradGuard no_grad;
    std::printf("epoch %d  loss %.4f  test accuracy %.2f%%  (%.2f s, %.0f samples/s)\n", epoch,
                loss_sum / steps, 100.0 * accuracy(matmul(test_x, w) + b, test_y), seconds,
                steps * batch / seconds);
  }
  NoGradGuard no_grad;
  std::printf("final test accuracy: %.2f%%\n", 100.0 * accuracy(matmul(test_x, w) + b, test_y));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "fashion_mnist_logreg: %s\n", e.what());
  return 1;
}
