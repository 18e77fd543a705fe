// In-memory classification sets of generated CBED stacks, for training a ResNet on crystal
// systems or space groups through exadnn's Trainer (until the HDF5 shards and their out-of-core
// loader feed `exadnn train`): materials generated with generate_material, split into training
// and test materials, optionally with an imbalanced training set.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <exadnn/data/tensor_dataset.h>

#include "cbed/generate.h"

namespace cbed {

enum class ClassifyTask { crystal_system, space_group };

struct ClassifyDataOptions {
  GenerateOptions generate;  // groups (material m is of groups[m % size]), stack, dose, seed
  ClassifyTask task = ClassifyTask::crystal_system;
  int64_t materials = 700;     // candidate material ids 0..materials-1
  double test_fraction = 0.2;  // of the candidates, held out (by material)
  /// The training set's ratio of its most to its least frequent class: class c of K (in the
  /// order of class_names) keeps its first n_c = A·imbalance^(-c / (K - 1)) training materials,
  /// A as large as the candidates allow (so n_0 : n_{K-1} = imbalance); 1 keeps all. The test
  /// set stays as generated.
  double imbalance = 1;
  int threads = 0;      // generation threads (0: all cores)
  int log_decades = 4;  // the input scale's depth (log_scale_patterns): floor 10^-log_decades
};

struct ClassifyData {
  /// Inputs [N, 3, H, W] f32: each pattern log10(I / max (1 - f) + f) / d + 1, in [0, 1]
  /// (d = log_decades, f = 10^-d); targets [N]
  /// i64 class indices.
  std::shared_ptr<exadnn::data::TensorDataset> train, test;
  std::vector<std::string> class_names;  // "cubic", or the space-group number "225"
  std::vector<int64_t> train_counts;     // training materials per class
  GeneratorStats stats;                  // over every generated material
};

/// Generates the materials kept (in parallel; a sample depends only on (seed, material id)) and
/// labels each with its class: the crystal system (7 classes) or its space group's index among
/// the distinct groups of options.generate.groups (sorted). An Error names a bad option.
ClassifyData make_classify_data(const ClassifyDataOptions& options);

}  // namespace cbed
