// Harness: training configs (YAML) as `exadnn train` parses them (train::parse_config), checked
// key by key against the registries; nothing is trained.
#include <string>

#include "exadnn/train/config.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exadnn;
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::accept_or_reject([&] { train::parse_config(text, "fuzz.yaml"); });
  return 0;
}
