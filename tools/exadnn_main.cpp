// The `exadnn` command line. For now: `exadnn info` reports the build and the fast paths chosen
// at run time (BLAS vendor and core, GEMM provider, threads, memory kinds).
#include <exadnn/exadnn.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: exadnn <command> [options]\n\n"
               "commands:\n"
               "  info [--threads N]   print the build, BLAS/oneDNN configuration and GEMM path\n"
               "  --version            print the version\n"
               "  --help               print this help\n");
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string command = argv[1];
  if (command == "--help" || command == "-h") {
    usage(stdout);
    return 0;
  }
  if (command == "--version") {
    std::printf("exadnn %s\n", exadnn::version());
    return 0;
  }
  if (command == "info") {
    for (int i = 2; i < argc; ++i) {
      if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
        exadnn::set_num_threads(std::stoi(argv[++i]));
      } else {
        std::fprintf(stderr, "exadnn info: unknown option '%s'\n", argv[i]);
        return 2;
      }
    }
    std::printf("%s", exadnn::runtime_info().c_str());
    return 0;
  }
  std::fprintf(stderr, "exadnn: unknown command '%s'\n\n", command.c_str());
  usage(stderr);
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "exadnn: %s\n", e.what());
  return 1;
}
