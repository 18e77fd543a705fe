// The layout of the dataset's HDF5 shards (documented in apps/cbed/README.md, "Shards"): dataset
// names, label ranges, and which material goes to which split and shard. Shared by the parallel
// writer (the generator program) and the serial reader (the loader); no HDF5 here.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cbed::shard {

inline constexpr const char* kFormat = "exadnn-cbed-shard";  // root attribute `format`
inline constexpr int kVersion = 1;                           // root attribute `version`
inline constexpr int kElements = 103;                        // composition columns: Z = 1..103
inline constexpr int kTextBytes = 32;  // fixed-length strings (formula, zone axes), NUL-padded

// Dataset names (N = samples in the shard).
inline constexpr const char* kPatterns = "patterns";             // f32 [N, 3, H, W]
inline constexpr const char* kSpaceGroup = "space_group";        // i32 [N], 1..230
inline constexpr const char* kCrystalSystem = "crystal_system";  // i32 [N], 0..6 (triclinic..cubic)
inline constexpr const char* kLattice = "lattice";          // f64 [N, 6]: a b c (A) al be ga (deg)
inline constexpr const char* kComposition = "composition";  // i32 [N, 103]: atoms of Z = 1..103
inline constexpr const char* kFormula = "formula";          // string [N] (reduced, Hill order)
inline constexpr const char* kMaterialId = "material_id";   // i64 [N], unique over all splits
inline constexpr const char* kZoneAxes = "zone_axes";       // string [N, 3]
// f32 [N, 3]: each pattern's largest value, so a band of a pattern's rows is put on the
// classifiers' scale (pattern_scale.h) without reading the rest (spatial parallelism). Optional:
// shards written before it lack it, and are then read whole.
inline constexpr const char* kPatternMax = "pattern_max";

enum class Split { train, val, test };
const char* split_name(Split split);  // "train", "val", "test"

/// One material's labels, as stored.
struct SampleLabels {
  int32_t space_group = 0;
  int32_t crystal_system = 0;
  std::array<double, 6> lattice{};
  std::array<int32_t, kElements> composition{};
  std::string formula;
  int64_t material_id = 0;
  std::array<std::string, 3> zone_axes;
};

/// The attributes of a shard's root group.
struct ShardHeader {
  Split split = Split::train;
  int shard = 0;            // index within its split
  int shards_in_split = 1;  // shards the split has
  int64_t materials = 0;    // materials of the whole generation run (all splits)
  int height = 0, width = 0;
  std::string simulation = "kinematic";  // or "multislice"
  double dose = 0;                       // electrons per pattern (0: noise-free intensities)
  double kilovolts = 200, aperture_mrad = 5, detector_mrad = 0, thickness = 0;
  uint64_t seed = 0;
  int samples_per_chunk = 1;
  int deflate = 0;  // gzip level 0..9 (0: not compressed)
};

/// The file name of a shard: "cbed_train_000.h5".
std::string shard_file_name(Split split, int shard);

/// The materials of a run split by material: materials 0..n-1 shuffled with `seed`, the first
/// round(n * train_fraction) to train, the next round(n * val_fraction) to val, the rest to test;
/// within a split, shard s of S gets the s-th of S near-equal consecutive blocks (ascending ids).
/// Error for fractions outside [0, 1] or summing above 1, or a split with more shards than
/// materials.
struct SplitPlan {
  std::array<std::vector<int64_t>, 3> materials;  // per split, ascending
  std::array<int, 3> shards{};
  /// The materials of `shard` of `split`.
  std::vector<int64_t> shard_materials(Split split, int shard) const;
};
SplitPlan plan_splits(int64_t materials, double train_fraction, double val_fraction,
                      std::array<int, 3> shards, uint64_t seed);

/// Rows [begin, end) of `count` that rank `rank` of `ranks` writes (near-equal blocks).
std::array<int64_t, 2> rank_rows(int64_t count, int rank, int ranks);

/// The space groups named by a list like "1-230" or "225,229,194,2-15" (each 1..230; Error naming
/// the item otherwise).
std::vector<int> parse_groups(const std::string& list);

}  // namespace cbed::shard
