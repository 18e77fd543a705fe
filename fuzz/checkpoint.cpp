// Harness: checkpoint files (io/checkpoint.h). The first byte's low bit says whether the harness
// first rewrites the trailing FNV-1a checksum to match (so mutations reach the header JSON, the
// tensor table and the data checks behind it) or keeps the file's own (the checksum check
// itself); the rest is the file.
#include <cstring>
#include <vector>

#include "exadnn/io/checkpoint.h"
#include "fuzz_input.h"
#include "io/checkpoint_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exadnn;
  static const fuzz::InputFile file(".ckpt");
  if (size == 0) return 0;
  std::vector<uint8_t> bytes(data + 1, data + size);
  constexpr size_t kSum = io::internal::kChecksumBytes;
  if ((data[0] & 1) && bytes.size() >= kSum) {
    const uint64_t sum = io::internal::fnv1a(bytes.data(), bytes.size() - kSum);
    std::memcpy(bytes.data() + bytes.size() - kSum, &sum, kSum);
  }
  const std::string& path = file.write(bytes.data(), bytes.size());
  fuzz::accept_or_reject([&] { io::load_checkpoint(path); });
  return 0;
}
