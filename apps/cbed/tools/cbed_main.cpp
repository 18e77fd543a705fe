// exadnn_cbed: the CBED dataset generator, `exadnn flow` with the cbed_generate module.
//   mpirun -np 3 exadnn_cbed flow run apps/cbed/workflows/cbed_generate.yaml
// Its own program, not a module of `exadnn`: the generator writes with Debian's parallel libhdf5
// (libhdf5_openmpi), the framework reads with the serial one (libhdf5_serial), and the two export
// the same symbols, so one process can use only one of them. This program links the parallel
// library ahead of libexadnn, so every HDF5 call in it (the framework's too) binds to the parallel
// library; cbed_generate checks that it did (shard::parallel_hdf5) before writing.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "flow_command.h"

int main(int argc, char** argv) {
  CLI::App app{"exadnn_cbed: CBED dataset generation (exadnn flow with the cbed modules)"};
  app.require_subcommand(1);
  const auto flow = exadnn::cli::add_flow_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return exadnn::cli::run_flow_command(*flow);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exadnn_cbed: %s\n", e.what());
    return 1;
  }
}
