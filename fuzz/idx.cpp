// Harness: IDX files, plain or gzip (read_idx detects gzip by its magic bytes; the corpus holds
// both), through every public reader of the format.
#include "exadnn/data/idx.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exadnn;
  static const fuzz::InputFile file(".idx");
  const std::string& path = file.write(data, size);
  fuzz::accept_or_reject([&] { data::read_idx(path); });
  fuzz::accept_or_reject([&] { data::read_idx(path, data::NonFinite::allow); });
  fuzz::accept_or_reject([&] { data::read_idx_images(path); });
  fuzz::accept_or_reject([&] { data::read_idx_labels(path); });
  return 0;
}
