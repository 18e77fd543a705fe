// HDF5 is a plugin (src/data/hdf5_api.h): libexadnn links no libhdf5, so CPU work that touches no
// HDF5 file maps neither it nor what Debian's libhdf5_serial pulls in (libcurl, GnuTLS,
// libcrypto: 3.5 MB resident in every `exadnn train` before); the first HDF5 call loads it. Each
// test runs in its own process (gtest_discover_tests), so one's loading does not leak into another.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "exadnn/exadnn.h"
#include "testing.h"

namespace exadnn {
namespace {

std::string hdf5_libraries_mapped() {
  return testing::libraries_mapped({"libexadnn_hdf5", "libhdf5", "libcurl", "libgnutls"});
}

TEST(Hdf5Plugin, TrainingWithoutHdf5FilesMapsNoHdf5Library) {
  // A tensor dataset through a data loader and one SGD step of a linear layer.
  data::DataLoader loader(data::TensorDataset(randn({32, 8}), randn({32, 4})),
                          data::DataLoaderOptions().batch_size(16));
  nn::Linear layer(8, 4);
  optim::SGD sgd(layer.parameters(), optim::SGDOptions(0.1));
  for (const data::Batch& batch : loader) {
    const Tensor loss = mean(pow(layer(batch.inputs) - batch.targets, 2.0));
    loss.backward();
    sgd.step();
    break;
  }
  EXPECT_EQ(hdf5_libraries_mapped(), "");
}

TEST(Hdf5Plugin, TheFirstFileLoadsThePluginAndRoundTrips) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "exadnn_hdf5_plugin_test.h5").string();
  const Tensor x = arange(12, TensorOptions().dtype(DType::f32)).reshape({3, 4});
  data::write_hdf5(path, {{"group/x", x}});
  EXPECT_NE(hdf5_libraries_mapped().find("libexadnn_hdf5"), std::string::npos);
  EXPECT_EQ(data::hdf5_dataset_names(path), std::vector<std::string>{"group/x"});
  const Tensor back = data::read_hdf5(path, "group/x");
  EXPECT_EQ(to_vector<float>(back), to_vector<float>(x));
  EXPECT_THROW(data::read_hdf5(path, "no_such"), Error);  // the plugin's Error reaches the caller
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace exadnn
