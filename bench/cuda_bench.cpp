// The GPU benchmark of scripts/gpu-check.sh (a plain program: it measures and prints, never
// asserts speed):
//   1. f32 GEMM through exadnn (matmul at fp32, TF32 opt-in, bf16, split_fp16) against raw
//      cublasSgemm / cublasGemmEx on the same device buffers, in TFLOP/s;
//   2. training samples/s of the configs/ MLP (784-512-256-10) and CNN (conv 32 5x5, pool,
//      conv 64 5x5, pool, linear 256, linear 10) on the GPU against the CPU, batch 128, SGD with
//      momentum, on random Fashion-MNIST-shaped data.
// Usage: exadnn_cuda_bench [--quick]   (--quick: fewer repetitions)
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <exadnn/backend/cuda/cuda.h>
#include <exadnn/exadnn.h>
#include <exadnn/nn/conv.h>
#include <exadnn/nn/pooling.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

using namespace exadnn;

namespace {

using Clock = std::chrono::steady_clock;

// Seconds per call of f (after one warm-up call), the device synchronised around the timing.
double seconds_per_call(int reps, const std::function<void()>& f) {
  f();
  cuda::synchronize();
  const auto start = Clock::now();
  for (int i = 0; i < reps; ++i) f();
  cuda::synchronize();
  return std::chrono::duration<double>(Clock::now() - start).count() / reps;
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error("cuda_bench", std::string(what) + " failed");
}

void gemm_table(bool quick) {
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "cublasCreate");
  std::printf("\n== f32 GEMM, square n x n (TFLOP/s) ==\n");
  std::printf("%6s %12s %12s %12s %12s %12s %12s\n", "n", "exadnn fp32", "cublasSgemm",
              "exadnn tf32", "cublas tf32", "exadnn bf16", "split_fp16");
  for (int64_t n : {1024, 4096, 8192}) {
    const Tensor a = randn({n, n}).to(Device::cuda()), b = randn({n, n}).to(Device::cuda());
    Tensor c = empty({n, n}, TensorOptions().device(Device::cuda()));
    const int reps = quick ? 3 : (n <= 1024 ? 50 : 10);
    const double flops = 2.0 * static_cast<double>(n) * n * n;
    auto tflops = [&](double s) { return flops / s * 1e-12; };
    const float one = 1.0f, zero = 0.0f;
    const int ni = static_cast<int>(n);
    auto raw = [&](cublasComputeType_t compute) {
      // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ.
      check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b.data_ptr(),
                         CUDA_R_32F, ni, a.data_ptr(), CUDA_R_32F, ni, &zero, c.data_ptr(),
                         CUDA_R_32F, ni, compute, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx");
    };
    const double ex_fp32 = seconds_per_call(reps, [&] { c = matmul(a, b); });
    const double raw_fp32 = seconds_per_call(reps, [&] { raw(CUBLAS_COMPUTE_32F); });
    double ex_tf32 = 0;
    {
      cuda::Tf32Guard tf32;
      ex_tf32 = seconds_per_call(reps, [&] { c = matmul(a, b); });
    }
    const double raw_tf32 = seconds_per_call(reps, [&] { raw(CUBLAS_COMPUTE_32F_FAST_TF32); });
    const double ex_bf16 = seconds_per_call(reps, [&] { c = matmul(a, b, MatmulPrecision::bf16); });
    const double ex_split =
        seconds_per_call(reps, [&] { c = matmul(a, b, MatmulPrecision::split_fp16); });
    std::printf("%6lld %12.1f %12.1f %12.1f %12.1f %12.1f %12.1f\n", static_cast<long long>(n),
                tflops(ex_fp32), tflops(raw_fp32), tflops(ex_tf32), tflops(raw_tf32),
                tflops(ex_bf16), tflops(ex_split));
  }
  cublasDestroy(handle);
}

std::shared_ptr<nn::Sequential> mlp() {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(784, 512),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(512, 256),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 10)});
}

std::shared_ptr<nn::Sequential> cnn() {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions(1, 32, 5)), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::MaxPool2d>(2),
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions(32, 64, 5)), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::MaxPool2d>(2), std::make_shared<nn::Flatten>(),
      std::make_shared<nn::Linear>(1024, 256), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(256, 10)});
}

// Training samples/s of `model` on `device`: batches of 128 random images [1, 28, 28] made on the
// host and moved to the device each step, as a data loader's would be.
double samples_per_second(const std::shared_ptr<nn::Sequential>& model, Device device, int steps) {
  manual_seed(0);
  model->to(device);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  const int64_t batch = 128;
  const Tensor images = rand({batch, 1, 28, 28});
  const Tensor labels = randint(0, 10, {batch}, TensorOptions(DType::i64));
  auto step = [&] {
    const Tensor x = images.to(device), y = labels.to(device);
    Tensor loss = nn::cross_entropy(model->forward(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
    (void)loss.item<double>();  // the host waits for the step, as a training loop's logging does
  };
  step();
  const auto start = Clock::now();
  for (int i = 0; i < steps; ++i) step();
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  return static_cast<double>(steps * batch) / s;
}

void training_table(bool quick) {
  std::printf("\n== training samples/s (batch 128, SGD momentum; CPU: %d threads) ==\n",
              get_num_threads());
  std::printf("%6s %14s %14s %10s\n", "model", "GPU", "CPU", "speed-up");
  const int gpu_steps = quick ? 20 : 200, cpu_steps = quick ? 3 : 10;
  for (const char* name : {"mlp", "cnn"}) {
    const bool is_mlp = std::strcmp(name, "mlp") == 0;
    const double gpu = samples_per_second(is_mlp ? mlp() : cnn(), Device::cuda(), gpu_steps);
    const double cpu = samples_per_second(is_mlp ? mlp() : cnn(), Device::cpu(), cpu_steps);
    std::printf("%6s %14.0f %14.0f %9.1fx\n", name, gpu, cpu, gpu / cpu);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  try {
    std::printf("%s", cuda::report().c_str());
    if (cuda::device_count() == 0) {
      std::printf("no CUDA device visible: nothing to measure\n");
      return 0;
    }
    gemm_table(quick);
    training_table(quick);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
