// Uses the installed library: a small product and its gradient, and an HDF5 file written and read
// back (through the installed HDF5 plugin, libexadnn_hdf5.so.0, found beside libexadnn); exits
// non-zero on a wrong answer.
#include <exadnn/exadnn.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

int main() {
  using namespace exadnn;
  Tensor x = from_vector<double>({1, 2, 3, 4}, {2, 2}, TensorOptions(DType::f64).requires_grad());
  Tensor y = sum(matmul(x, x));  // d/dx sum(x·x) = 1·xᵀ + xᵀ·1
  y.backward();
  const std::vector<double> g = to_vector<double>(x.grad());
  const double expected[] = {7, 11, 9, 13};
  for (int i = 0; i < 4; ++i) {
    if (std::fabs(g[i] - expected[i]) > 1e-12) {
      std::printf("wrong gradient %d: %f vs %f\n", i, g[i], expected[i]);
      return 1;
    }
  }
  const std::string path =
      (std::filesystem::temp_directory_path() / "exadnn_consumer_check.h5").string();
  data::write_hdf5(path, {{"x", x.detach()}});
  const std::vector<double> back = to_vector<double>(data::read_hdf5(path, "x"));
  std::filesystem::remove(path);
  if (back != to_vector<double>(x.detach())) {
    std::printf("the HDF5 file did not read back as written\n");
    return 1;
  }
  std::printf("consumer ok: exadnn %s, sum = %g, HDF5 round trip\n", version(), y.item<double>());
  return 0;
}
