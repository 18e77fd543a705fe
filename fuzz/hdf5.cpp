// Harness: HDF5 files through the framework's reader (src/data/hdf5.cpp): the dataset list, then
// every dataset read (at most 8), and the seeds' "x"/"y" pair as a dataset. What is checked is the
// reader's own checks of what libhdf5 reports (types, shapes, sizes, values); libhdf5 itself is
// not instrumented. Every read is limited to 64 MiB (read_hdf5's max_bytes): a corrupt header
// may claim any dataset size, and the limit's check is one of the reader's checks under test.
#include "exadnn/data/hdf5.h"
#include "fuzz_input.h"
#include "hdf5_sanitizer_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exadnn;
  constexpr int64_t kMaxBytes = int64_t(64) << 20;
  static const fuzz::InputFile file(".h5");
  const std::string& path = file.write(data, size);
  std::vector<std::string> names;
  fuzz::accept_or_reject([&] { names = data::hdf5_dataset_names(path); });
  if (names.size() > 8) names.resize(8);
  for (const std::string& name : names)
    fuzz::accept_or_reject([&] { data::read_hdf5(path, name, data::NonFinite::allow, kMaxBytes); });
  fuzz::accept_or_reject([&] {
    data::load_hdf5_dataset(path, "x", "y", DType::f32, data::NonFinite::reject, kMaxBytes);
  });
  return 0;
}
