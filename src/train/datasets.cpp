// The built-in dataset kinds of the config's `data` section.
#include "exadnn/train/datasets.h"

#include "exadnn/data/csv.h"
#include "exadnn/data/hdf5.h"
#include "exadnn/data/hdf5_dataset.h"
#include "exadnn/data/idx.h"

namespace exadnn::train {

namespace {

using DatasetPtr = std::shared_ptr<const data::Dataset>;

DatasetPtr shared(data::TensorDataset ds) {
  return std::make_shared<data::TensorDataset>(std::move(ds));
}

// IDX images stay u8 (a quarter of f32's memory) and become pixel / 255 per batch.
std::shared_ptr<const data::Transform> pixels_to_float() {
  return std::make_shared<data::ToFloat>(1.0 / 255.0);
}

// Fashion-MNIST's labels 0..9 (Xiao, Rasul and Vollgraf, arXiv:1708.07747, table 1).
const std::vector<std::string> kFashionMnistClasses = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

DatasetKind mnist_layout(const std::string& name, std::vector<std::string> class_names = {}) {
  const auto source = [name](const DataSpec& d, bool train) {
    return detail::cat(name, " in ", d.path, train ? " (training set)" : " (test set)");
  };
  return {[](const DataSpec&) { return std::string(); },
          [](const DataSpec& d) -> TrainingData {
            return {shared(data::load_mnist(d.path, data::Split::train, data::Pixels::u8)),
                    shared(data::load_mnist(d.path, data::Split::test, data::Pixels::u8)),
                    pixels_to_float()};
          },
          source,
          source,
          {},
          std::move(class_names)};
}

Registry<DatasetKind>* make_builtin() {
  auto* r = new Registry<DatasetKind>("dataset");
  r->add("fashion-mnist", mnist_layout("fashion-mnist", kFashionMnistClasses));
  r->add("mnist", mnist_layout("mnist"));
  r->add("idx",
         {[](const DataSpec& d) {
            const bool complete = !d.train_images.empty() && !d.train_labels.empty() &&
                                  !d.test_images.empty() && !d.test_labels.empty();
            return complete ? std::string()
                            : std::string(
                                  "needs train_images, train_labels, test_images, "
                                  "test_labels");
          },
          [](const DataSpec& d) -> TrainingData {
            return {
                shared(data::load_idx_dataset(d.train_images, d.train_labels, data::Pixels::u8)),
                shared(data::load_idx_dataset(d.test_images, d.test_labels, data::Pixels::u8)),
                pixels_to_float()};
          },
          [](const DataSpec& d, bool train) { return train ? d.train_images : d.test_images; },
          [](const DataSpec& d, bool train) { return train ? d.train_labels : d.test_labels; }});
  const auto csv_file = [](const DataSpec& d, bool train) {
    return train ? d.train_file : d.test_file;
  };
  r->add("csv", {[](const DataSpec& d) {
                   return d.train_file.empty() || d.test_file.empty()
                              ? std::string("needs 'train' and 'test' files")
                              : std::string();
                 },
                 [](const DataSpec& d) -> TrainingData {
                   const auto opts =
                       data::CsvOptions().header(d.header).label_column(d.label_column);
                   return {shared(data::load_csv_dataset(d.train_file, opts)),
                           shared(data::load_csv_dataset(d.test_file, opts)), nullptr};
                 },
                 csv_file, csv_file});
  r->add("hdf5", {[](const DataSpec& d) {
                    return d.file.empty() ? std::string("needs 'file'") : std::string();
                  },
                  [](const DataSpec& d) -> TrainingData {
                    if (!d.in_memory)  // inputs read per batch
                      return {std::make_shared<data::Hdf5Dataset>(d.file, d.train_x, d.train_y),
                              std::make_shared<data::Hdf5Dataset>(d.file, d.test_x, d.test_y),
                              nullptr};
                    return {shared(data::load_hdf5_dataset(d.file, d.train_x, d.train_y)),
                            shared(data::load_hdf5_dataset(d.file, d.test_x, d.test_y)), nullptr};
                  },
                  [](const DataSpec& d, bool train) {
                    return detail::cat(d.file, " (", train ? d.train_x : d.test_x, ")");
                  },
                  [](const DataSpec& d, bool train) {
                    return detail::cat(d.file, " (", train ? d.train_y : d.test_y, ")");
                  }});
  return r;
}

}  // namespace

Registry<DatasetKind>& datasets() {
  static Registry<DatasetKind>* table = make_builtin();  // never destroyed: used at exit too
  return *table;
}

std::vector<std::string> class_names(const DataSpec& d) {
  if (!d.class_names.empty() || !datasets().contains(d.dataset)) return d.class_names;
  return datasets().at(d.dataset).class_names;
}

TrainingData load_training_data(const DataSpec& d) {
  const DatasetKind& kind = datasets().at(d.dataset);
  const std::string lacks = kind.missing(d);
  EXADNN_CHECK(lacks.empty(), "data", "dataset '", d.dataset, "' ", lacks);
  TrainingData data = kind.load(d);
  EXADNN_CHECK(d.stream_buffer_mb == 0 || data.stream, "data", "data.stream: dataset '", d.dataset,
               "' cannot stream its training set (it is read by index)");
  EXADNN_CHECK(data.train->size() > 0, "data", kind.source(d, true),
               " holds no examples: there is nothing to train on");
  EXADNN_CHECK(data.test->size() > 0, "data", kind.source(d, false),
               " holds no examples: there is nothing to score the model on");
  EXADNN_CHECK(data.train->input_shape() == data.test->input_shape(), "data",
               "the test examples have shape ", data.test->input_shape(), " (",
               kind.source(d, false), ") but the training examples ", data.train->input_shape(),
               " (", kind.source(d, true), ")");
  return data;
}

}  // namespace exadnn::train
