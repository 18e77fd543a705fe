// The generator's workflow module (workflows/cbed_generate.yaml), in `exadnn` through the shared
// library exadnn_app_cbed_generate (built against the parallel libhdf5; CMakeLists.txt says why):
//   cbed_generate  one ensemble instance per shard: instances 0 .. train_shards - 1 write the
//                  train split's shards, then val's, then test's; the instance's ranks share the
//                  shard's materials (near-equal blocks of rows) and write the file together with
//                  parallel HDF5 (shard_writer.h). Materials are split by material (plan_splits),
//                  so no material is in two splits, and a material's sample depends only on
//                  (seed, material id), not on the rank count.
#include <exadnn/dist/mpi_interop.h>
#include <exadnn/flow/module.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cbed/generate.h"
#include "cbed/shard_writer.h"

namespace cbed {
namespace {

GenerateOptions generate_options(const exadnn::flow::ModuleContext& ctx) {
  GenerateOptions o;
  o.groups = shard::parse_groups(ctx.arg<std::string>("groups", "1-230"));
  o.seed = uint64_t(ctx.arg<int64_t>("seed", 1));
  o.dose = ctx.arg<double>("dose", 0.0);
  const int size = ctx.arg<int>("size", 64);
  o.stack.multislice.grid.nx = o.stack.multislice.grid.ny = size;
  o.stack.multislice.kilovolts = ctx.arg<double>("kilovolts", 200.0);
  o.stack.multislice.aperture_mrad = ctx.arg<double>("aperture_mrad", 5.0);
  o.stack.multislice.debye_waller_b = ctx.arg<double>("debye_waller_b", 0.5);
  o.stack.multislice.measure_fft = false;  // one pattern per size and material: no MEASURE
  o.stack.thickness = ctx.arg<double>("thickness", 50.0);
  o.stack.plane_size = ctx.arg<double>("plane_size", 20.0);
  o.stack.max_slice = ctx.arg<double>("max_slice", 2.0);
  o.stack.detector_mrad = ctx.arg<double>("detector_mrad", 0.0);
  const std::string mode = ctx.arg<std::string>("mode", "kinematic");
  EXADNN_CHECK(mode == "kinematic" || mode == "multislice", "cbed_generate", ctx.describe(),
               ": mode '", mode, "' is neither kinematic nor multislice");
  o.stack.kinematic = mode == "kinematic";
  return o;
}

void generate(exadnn::flow::ModuleContext& ctx) {
  EXADNN_CHECK(shard::parallel_hdf5(), "cbed_generate",
               "the libhdf5 this module is bound to is not the parallel one (H5Pset_fapl_mpio "
               "failed): build it against Debian's libhdf5-openmpi-dev");
  const std::array<int, 3> shards{ctx.arg<int>("train_shards", 1), ctx.arg<int>("val_shards", 1),
                                  ctx.arg<int>("test_shards", 1)};
  EXADNN_CHECK(ctx.instances() == shards[0] + shards[1] + shards[2], "cbed_generate",
               ctx.describe(), ": ", ctx.instances(), " instances for ", shards[0], " + ",
               shards[1], " + ", shards[2], " shards (one instance per shard)");
  const int64_t materials = ctx.arg<int64_t>("materials");
  const GenerateOptions o = generate_options(ctx);
  const shard::SplitPlan plan =
      shard::plan_splits(materials, ctx.arg<double>("train_fraction", 0.8),
                         ctx.arg<double>("val_fraction", 0.1), shards, o.seed);
  shard::ShardHeader header;
  int index = ctx.instance();
  int split = 0;
  while (index >= shards[split]) index -= shards[split++];
  header.split = shard::Split(split);
  header.shard = index;
  header.shards_in_split = shards[split];
  header.materials = materials;
  header.height = header.width = o.stack.multislice.grid.nx;
  header.simulation = o.stack.kinematic ? "kinematic" : "multislice";
  header.dose = o.dose;
  header.kilovolts = o.stack.multislice.kilovolts;
  header.aperture_mrad = o.stack.multislice.aperture_mrad;
  header.detector_mrad = o.stack.detector_mrad;
  header.thickness = o.stack.thickness;
  header.seed = o.seed;
  header.samples_per_chunk = ctx.arg<int>("samples_per_chunk", 1);
  header.deflate = ctx.arg<int>("deflate", 0);

  const auto start = std::chrono::steady_clock::now();
  const std::vector<int64_t> mine_all = plan.shard_materials(header.split, index);
  const auto [begin, end] =
      shard::rank_rows(int64_t(mine_all.size()), ctx.comm().rank(), ctx.comm().size());
  shard::ShardRows rows;
  long attempts = 0, accepted = 0;
  for (int64_t i = begin; i < end; ++i) {
    GeneratedSample s = generate_material(mine_all[i], o);
    rows.patterns.insert(rows.patterns.end(), s.patterns.begin(), s.patterns.end());
    rows.labels.push_back(std::move(s.labels));
    attempts += s.stats.attempts;
    accepted += s.stats.accepted;
  }
  const std::string dir = ctx.arg<std::string>("out", "cbed_shards");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + shard::shard_file_name(header.split, index);
  shard::write_shard(exadnn::dist::native_handle(ctx.comm()), path, header, rows);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[cbed_generate] %s: rank %d of %d wrote rows %lld..%lld of %zu (%ld structures "
      "accepted of %ld attempts) in %.2f s\n",
      path.c_str(), ctx.comm().rank(), ctx.comm().size(), (long long)begin, (long long)end,
      mine_all.size(), accepted, attempts, seconds);
  std::fflush(stdout);
}

}  // namespace
}  // namespace cbed

EXADNN_FLOW_MODULE(cbed_generate, cbed::generate);
