// Harness: the CBED application's shard files (apps/cbed loader.h) as the loader opens them:
// format and version attributes, the patterns' shape, every label dataset's length and range;
// then, when the file opens, its first pattern read.
#include <vector>

#include "cbed/loader.h"
#include "fuzz_input.h"
#include "hdf5_sanitizer_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exadnn;
  static const fuzz::InputFile file(".h5");
  const std::string& path = file.write(data, size);
  fuzz::accept_or_reject([&] {
    const cbed::shard::ShardSet set({path});
    const int64_t pixels = int64_t(3) * set.height() * set.width();
    if (set.size() > 0 && pixels <= (int64_t(1) << 20)) {
      std::vector<float> first(static_cast<size_t>(pixels));
      set.read_rows(0, 0, 1, first.data());
    }
  });
  return 0;
}
