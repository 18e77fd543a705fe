// exadnn side of the wide-MLP equivalence check (bench/wide_mlp_equivalence.py): reads what
// `wide_mlp_equivalence.py reference` wrote into DIR (PyTorch's initial 784-2048-2048-10 weights,
// the batches, test images), builds the model, loss and optimizer exactly as `exadnn train
// --config CONFIG` does (train::load_config, build_model with its layer fusion, the loss and
// optimizer registries, denormals flushed as the config says), loads PyTorch's weights, trains the
// same Adam steps in DTYPE and writes losses, first/last-step gradients, final parameters, Adam's
// exp_avg and exp_avg_sq and the test logits under DIR/exadnn_DTYPE/ (raw little-endian f64).
//
//   exadnn_wide_mlp_equivalence DIR CONFIG f64|f32
//
// Not in bench/CMakeLists.txt; built by hand against a build tree, e.g.
//   g++ -O2 -fopenmp -std=c++20 -Iinclude bench/wide_mlp_equivalence.cpp -o /tmp/wme_exadnn \
//     -Wl,-rpath,$PWD/build-gpu/src build-gpu/src/libexadnn_train.so \
//     build-gpu/src/libexadnn_dist.so build-gpu/src/libexadnn.so
// and run as bench/wide_mlp_equivalence.py describes.
//   exadnn_wide_mlp_equivalence DIR CONFIG dump SEED   exadnn's own initial parameters for SEED
//       (seeded as Trainer does) under DIR/init_exadnn_SEED/, and the first 3 epoch orders of
//       the training loader (DIR/order_exadnn_SEED.i64, [3, 60000])
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "equivalence_io.h"
#include "exadnn/data/data_loader.h"
#include "exadnn/exadnn.h"
#include "exadnn/train/config.h"
#include "exadnn/train/datasets.h"
#include "exadnn/train/losses.h"
#include "exadnn/train/model_builder.h"
#include "exadnn/train/optimizers.h"

using namespace exadnn;

namespace {

constexpr int64_t kTest = 512, kPixels = 28 * 28;

using namespace equivalence_io;  // read, read_f64, read_state, rows, write_f64

void run(const std::string& dir, const std::string& config_path, const std::string& dtype_name) {
  EXADNN_CHECK(dtype_name == "f64" || dtype_name == "f32", "wide_mlp_equivalence",
               "DTYPE must be f64 or f32");
  const DType dtype = dtype_name == "f64" ? DType::f64 : DType::f32;
  const std::string out = dir + "/exadnn_" + dtype_name;
  const train::TrainConfig c = train::load_config(config_path);
  set_num_threads(1);  // the same sums whatever the machine's load
  // As Trainer::fit; WME_FLUSH=0|1 overrides the config (to look into a difference).
  const char* flush_env = std::getenv("WME_FLUSH");
  const FlushDenormalsScope flush(flush_env ? std::strcmp(flush_env, "0") != 0 : c.flush_denormals);
  auto net = train::build_model(c.model, {1, 28, 28});
  net->to(dtype);
  net->load_state_dict(read_state(dir, dtype));  // strict: PyTorch's names and shapes
  std::vector<std::string> names;
  std::vector<Tensor> params;
  for (const auto& [name, p] : net->named_parameters()) {
    names.push_back(name);
    params.push_back(p);
  }
  auto opt = train::optimizers().at(c.optimizer.name).make(params, c.optimizer);
  const train::LossFunction loss_fn = train::losses().at(c.loss);
  std::vector<int64_t> sizes;
  {
    std::ifstream f(dir + "/batches.txt");
    for (int64_t b; f >> b;) sizes.push_back(b);
  }
  const std::vector<double> x = read<double>(dir + "/x.f64");
  const std::vector<int64_t> y = read<int64_t>(dir + "/y.i64");
  std::vector<double> losses;
  net->train();
  int64_t start = 0;
  for (size_t s = 0; s < sizes.size(); ++s) {
    const int64_t b = sizes[s];
    const Tensor images = rows(x, start, b, kPixels, {b, 1, 28, 28}).to(dtype);
    const Tensor labels = rows(y, start, b, 1, {b});
    // Trainer::Run::train_epoch's order: loss, zero_grad, backward, step.
    Tensor loss = loss_fn(net->forward(images), labels);
    opt->zero_grad();
    loss.backward();
    for (const auto& [tag, when] : {std::pair<const char*, size_t>{"grad_first", 0},
                                    std::pair<const char*, size_t>{"grad_last", sizes.size() - 1}})
      if (s == when)
        for (size_t i = 0; i < params.size(); ++i)
          write_f64(out + "/" + tag + "/" + names[i] + ".f64", params[i].grad());
    opt->step();
    losses.push_back(loss.item<double>());
    start += b;
  }
  write_f64(out + "/loss.f64", from_vector<double>(losses));
  for (size_t i = 0; i < params.size(); ++i) {
    EXADNN_CHECK(opt->param_step_count(i) == static_cast<int64_t>(sizes.size()),
                 "wide_mlp_equivalence", "step count");
    write_f64(out + "/final/" + names[i] + ".f64", params[i]);
    write_f64(out + "/exp_avg/" + names[i] + ".f64", opt->state(i, "exp_avg"));
    write_f64(out + "/exp_avg_sq/" + names[i] + ".f64", opt->state(i, "exp_avg_sq"));
  }
  NoGradGuard no_grad;
  net->eval();
  write_f64(out + "/logits.f64",
            net->forward(read_f64(dir + "/test_x.f64", {kTest, 1, 28, 28}).to(dtype)));
  std::printf("exadnn %s losses:", dtype_name.c_str());
  for (double l : losses) std::printf(" %.9f", l);
  std::printf("\n");
}

void dump(const std::string& dir, const std::string& config_path, uint64_t seed) {
  train::TrainConfig c = train::load_config(config_path);
  c.seed = seed;
  manual_seed(c.seed);  // as Trainer's constructor, before the data and the model
  const train::TrainingData data = train::load_training_data(c.data);
  auto net = train::build_model(c.model, data.train->input_shape());
  const std::string out = dir + "/init_exadnn_" + std::to_string(seed);
  for (const auto& [name, p] : net->named_parameters()) write_f64(out + "/" + name + ".f64", p);
  data::DataLoader loader(data.train, data::DataLoaderOptions()
                                          .batch_size(c.data.batch_size)
                                          .shuffle(c.data.shuffle)
                                          .seed(c.seed)
                                          .transform(data.transform));
  std::vector<int64_t> all;
  for (int64_t e = 0; e < 3; ++e) {
    const std::vector<int64_t> o = loader.epoch_order(e);
    all.insert(all.end(), o.begin(), o.end());
  }
  std::ofstream f(dir + "/order_exadnn_" + std::to_string(seed) + ".i64", std::ios::binary);
  f.write(reinterpret_cast<const char*>(all.data()),
          static_cast<std::streamsize>(all.size() * sizeof(int64_t)));
  std::printf("batches per epoch %lld\n", static_cast<long long>(loader.batches_per_epoch()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && !(argc == 5 && std::strcmp(argv[3], "dump") == 0)) {
    std::fprintf(stderr, "usage: %s DIR CONFIG f64|f32 | %s DIR CONFIG dump SEED\n", argv[0],
                 argv[0]);
    return 2;
  }
  try {
    if (argc == 5)
      dump(argv[1], argv[2], std::stoull(argv[4]));
    else
      run(argv[1], argv[2], argv[3]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
