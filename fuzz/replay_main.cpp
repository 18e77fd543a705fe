// The replay program of a harness in builds without libFuzzer (EXADNN_FUZZ=OFF): feeds every file
// of the given folders (and any files given) to LLVMFuzzerTestOneInput, one after the other, so
// CTest (fuzz.replay.<harness>) runs the seed corpus and the regression inputs on every CI run.
//
//   fuzz_<harness> DIR_OR_FILE...
//
// A folder that does not exist is skipped (a harness may have no regressions yet); no input at
// all is a failure. A bug shows as a crash, a sanitizer report or an uncaught exception, with the
// input's path printed just before.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path p(argv[i]);
    if (fs::is_directory(p)) {
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) inputs.push_back(e.path());
    } else if (fs::is_regular_file(p)) {
      inputs.push_back(p);
    } else {
      std::printf("skipped %s (no such file or folder)\n", argv[i]);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no inputs\n");
    return 1;
  }
  for (const fs::path& p : inputs) {
    std::printf("replay %s\n", p.c_str());
    std::fflush(stdout);
    std::ifstream in(p, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replayed %zu inputs\n", inputs.size());
  return 0;
}
