// The datasets a training config names ("data: {dataset: idx, ...}"), as a registry users extend:
// each kind says which settings it needs, loads the training and test sets, and names where a
// split's examples and labels come from (for messages).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exadnn/data/batch_stream.h"
#include "exadnn/data/data_loader.h"
#include "exadnn/data/dataset.h"
#include "exadnn/data/transforms.h"
#include "exadnn/train/registry.h"

namespace exadnn::train {

/// The `data` section of a config (each kind reads the fields it needs).
struct DataSpec {
  std::string dataset = "fashion-mnist";
  std::string path = "/usr/share/datasets/fashion-mnist";  ///< fashion-mnist, mnist: the folder
  int64_t batch_size = 128;
  bool shuffle = true;
  /// data.drop_last: true leaves out each epoch's last batch when it is shorter than batch_size
  /// (with 60 000 images and batch 256: 234 steps instead of 235); false trains on it too.
  bool drop_last = false;
  std::string train_images, train_labels, test_images, test_labels;  ///< idx
  std::string train_file, test_file;                                 ///< csv
  int64_t label_column = 0;                                          ///< csv
  bool header = true;                                                ///< csv
  std::string file, train_x = "train/x", train_y = "train/y", test_x = "test/x",
                    test_y = "test/y";  ///< hdf5: the file and its datasets
  /// hdf5: true loads both sets into memory; false reads the inputs per batch (data::Hdf5Dataset:
  /// sets larger than memory; spatial ranks read their band of each image only).
  bool in_memory = true;
  /// data.stream.buffer_mb: > 0 streams the training set through an out-of-core loader holding
  /// at most this many MiB (kinds that stream: TrainingData::stream); 0 loads by index.
  int64_t stream_buffer_mb = 0;
  /// data.layout: how a kind's files are laid out, as names the kind declares
  /// (DatasetKind::layout_keys), e.g. the dataset and attribute names of someone else's files.
  std::map<std::string, std::string> layout;
  /// data.class_names: the name of each class, in label order (the metrics' per-class figures
  /// and the confusion matrix show them); empty: the kind's own (DatasetKind::class_names).
  std::vector<std::string> class_names;
};

/// A config's training and test sets and the transform their loaders apply to each batch of
/// inputs (IDX images are held as u8 and made f32 pixel / 255 per batch).
struct TrainingData {
  std::shared_ptr<const data::Dataset> train, test;
  std::shared_ptr<const data::Transform> transform;
  /// Set by kinds that stream (data.stream): the training batches of one rank, built with the
  /// loader's batch size, seed and rank (options.sampler()); `train` then only describes them.
  std::function<std::unique_ptr<data::BatchStream>(const data::DataLoaderOptions&)> stream = {};
};

struct DatasetKind {
  /// What the spec lacks for this kind ("needs 'file'"); empty when complete.
  std::function<std::string(const DataSpec&)> missing;
  std::function<TrainingData(const DataSpec&)> load;
  /// Where a split's examples (and its labels) come from: "train-images.idx", "a.h5 (train/x)".
  std::function<std::string(const DataSpec&, bool train)> source, label_source;
  /// The keys data.layout may hold for this kind, with what each names (for the config's
  /// messages); empty: the kind takes no layout.
  std::vector<std::pair<std::string, std::string>> layout_keys = {};
  /// The names of the kind's classes when its labels have fixed meanings (Fashion-MNIST's ten
  /// garments); empty: the labels are numbers only.
  std::vector<std::string> class_names = {};
};

/// fashion-mnist, mnist, idx, csv, hdf5, and every kind added with datasets().add(name, kind).
Registry<DatasetKind>& datasets();

/// The class names a run with `d` shows: data.class_names, else the kind's own (empty if neither).
std::vector<std::string> class_names(const DataSpec& d);

/// Loads the datasets `d` names and checks that both splits hold examples of one shape (an
/// Error naming the files otherwise).
TrainingData load_training_data(const DataSpec& d);

}  // namespace exadnn::train
