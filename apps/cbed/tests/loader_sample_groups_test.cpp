// Files in the ORNL CBED dataset's layout (one group per sample: a [3, H, W] `cbed_stack` and
// the attributes `space_group`, as text, and `material`, as h5py writes them) load unchanged
// through `data.layout: {format: sample_groups}`: by index and streamed, through `exadnn train`,
// with every malformed file an Error naming the file, group and value.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>

#include <exadnn/train/config.h>
#include <exadnn/train/trainer.h>

#include <cstdio>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "cbed/loader.h"
#include "cbed/space_group.h"
#include "shard_test_util.h"

namespace cbed::shard {
namespace {

using testing::error_of;
using testing::temp_dir;

constexpr int kSize = 8;  // patterns 8 x 8

// How one sample is written.
struct Sample {
  std::string group;
  std::string space_group;  // written as text; "" writes `space_group_number` as an integer
  int space_group_number = 0;
  std::string material;
  float first_pixel = 0;          // pixel i of the stack holds first_pixel + i
  bool double_precision = false;  // f64 stack (the loader converts)
  bool variable_length = false;   // strings variable-length (h5py's str) instead of fixed
  std::vector<hsize_t> dims = {3, kSize, kSize};
  bool with_stack = true;
};

void write_text(hid_t object, const char* name, const std::string& text, bool variable) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, variable ? H5T_VARIABLE : std::max<size_t>(1, text.size()));
  if (!variable) H5Tset_strpad(type, H5T_STR_NULLPAD);  // numpy's np.string_
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  const char* c = text.c_str();
  H5Awrite(a, type, variable ? static_cast<const void*>(&c) : static_cast<const void*>(c));
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
}

void write_file(const std::string& path, const std::vector<Sample>& samples) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0) << path;
  for (const Sample& s : samples) {
    const hid_t g = H5Gcreate2(file, s.group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (s.space_group.empty()) {
      const hid_t space = H5Screate(H5S_SCALAR);
      const hid_t a = H5Acreate2(g, "space_group", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
      const int64_t v = s.space_group_number;
      H5Awrite(a, H5T_NATIVE_INT64, &v);
      H5Aclose(a);
      H5Sclose(space);
    } else {
      write_text(g, "space_group", s.space_group, s.variable_length);
    }
    write_text(g, "material", s.material, s.variable_length);
    if (s.with_stack) {
      size_t n = 1;
      for (hsize_t d : s.dims) n *= d;
      std::vector<double> values(n);
      for (size_t i = 0; i < n; ++i) values[i] = s.first_pixel + double(i);
      const hid_t space = H5Screate_simple(int(s.dims.size()), s.dims.data(), nullptr);
      const hid_t stored = s.double_precision ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
      const hid_t set =
          H5Dcreate2(g, "cbed_stack", stored, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
      H5Dclose(set);
      H5Sclose(space);
    }
    H5Gclose(g);
  }
  H5Fclose(file);
}

// Two training files (five samples: two energies of Cu, Mg, two of GaAs stored as f64 with
// variable-length strings and an integer group) and a test file.
std::string ornl_folder(const std::string& name) {
  const std::string dir = temp_dir(name);
  write_file(dir + "/batch_train_0.h5", {{"sample_0_0", "225", 0, "Cu", 0},
                                         {"sample_0_1", "225", 0, "Cu", 1000},
                                         {"sample_1_0", "194", 0, "Mg", 2000}});
  write_file(dir + "/batch_train_1.h5", {{"sample_0_0", "", 216, "GaAs", 3000, true, true},
                                         {"sample_0_1", "", 216, "GaAs", 4000, true, true}});
  write_file(dir + "/batch_test_0.h5", {{"sample_0_0", "62", 0, "Fe3C", 5000}});
  return dir;
}

#ifdef EXADNN_CBED_SHARDS_TOOL
// The tool's output and exit code for `args`.
std::pair<std::string, int> run_tool(const std::string& args) {
  const std::string command = std::string(EXADNN_CBED_SHARDS_TOOL) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[256];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  const int status = pipe ? pclose(pipe) : -1;
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

TEST(SampleGroupFiles, CheckToolReadsThemAndReportsMaterialsInTwoSplits) {
  const std::string dir = ornl_folder("ornl_check");
  write_file(dir + "/batch_dev_0.h5", {{"sample_0_0", "12", 0, "Al2O3", 0}});
  auto [out, code] = run_tool("check " + dir + " --format sample_groups --materials 5");
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("train: 2 files, 5 samples [5, 3, 8, 8], 3 materials, 3 space groups"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("splits disjoint by material: 5 materials"), std::string::npos) << out;
  // A wrong expected count fails, naming both counts.
  std::tie(out, code) = run_tool("check " + dir + " --format sample_groups --materials 6");
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(out.find("5 materials over all splits, expected 6"), std::string::npos) << out;
  // Cu in the test split as well: reported, not refused (the files are not ours to fix).
  write_file(dir + "/batch_test_0.h5", {{"sample_0_0", "225", 0, "Cu", 0}});
  std::tie(out, code) = run_tool("check " + dir + " --format sample_groups");
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("warning: 1 of its materials also appear in an earlier split"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("splits NOT disjoint by material: 4 materials, 1 in more than one split"),
            std::string::npos)
      << out;
  // The generator's format still needs --materials.
  std::tie(out, code) = run_tool("check " + dir);
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(out.find("--materials is required for the shards format"), std::string::npos) << out;
}
#endif

TEST(SampleGroupFiles, OpenUnchangedInTheirLayout) {
  const std::string dir = ornl_folder("ornl_open");
  const ShardSet set = ShardSet::open_split(dir, Split::train, FileLayout::sample_groups());
  ASSERT_EQ(set.size(), 5);
  EXPECT_EQ(set.height(), kSize);
  EXPECT_EQ(set.width(), kSize);
  EXPECT_EQ(set.space_groups(), (std::vector<int32_t>{225, 225, 194, 216, 216}));
  EXPECT_EQ(set.crystal_systems()[2], int32_t(CrystalSystem::hexagonal));
  EXPECT_EQ(set.target(0, Target::space_group), 224);
  // Two energies of one material share its id; materials differ.
  const auto& ids = set.material_ids();
  EXPECT_EQ(ids[0], ids[1]);
  EXPECT_NE(ids[0], ids[2]);
  EXPECT_EQ(ids[3], ids[4]);
  EXPECT_NE(ids[2], ids[3]);
  // Rows read back as written, across the file boundary and from f64.
  const size_t per = size_t(3) * kSize * kSize;
  std::vector<float> rows(2 * per);
  set.read_rows(0, 1, 2, rows.data());
  EXPECT_EQ(rows[0], 1000.0f);
  EXPECT_EQ(rows[per - 1], 1000.0f + float(per - 1));
  EXPECT_EQ(rows[per + 7], 2007.0f);
  set.read_rows(1, 1, 1, rows.data());
  EXPECT_EQ(rows[5], 4005.0f);
  EXPECT_EQ(set.files()[1].groups, (std::vector<std::string>{"sample_0_0", "sample_0_1"}));
}

exadnn::train::TrainConfig ornl_config(const std::string& dir, const std::string& extra) {
  return exadnn::train::parse_config("data: {dataset: cbed-space-group, path: " + dir +
                                         ", batch_size: 2, layout: {format: sample_groups}" +
                                         extra +
                                         "}\n"
                                         "model: [flatten, {linear: {out: 230}}]\n"
                                         "loss: cross_entropy\n"
                                         "optimizer: {name: sgd, lr: 0.01}\n"
                                         "epochs: 1\n",
                                     "ornl.yaml");
}

TEST(SampleGroupFiles, TrainThroughTheConfigsLayoutByIndexAndStreamed) {
  const std::string dir = ornl_folder("ornl_train");
  for (const std::string extra : {"", ", stream: {buffer_mb: 1}"}) {
    exadnn::train::Trainer trainer(ornl_config(dir, extra));
    EXPECT_EQ(trainer.data().stream != nullptr, !extra.empty());
    EXPECT_EQ(trainer.data().train->size(), 5);
    ASSERT_EQ(trainer.data().test->size(), 1);
    EXPECT_EQ(trainer.data().test->get(0).targets.data<int64_t>()[0], 61);  // Pnma, group 62
    int64_t examples = 0;
    trainer.on_step([&](const exadnn::train::StepEvent& s) { examples += s.examples; });
    trainer.fit();
    EXPECT_EQ(examples, 5) << extra;
    EXPECT_TRUE(std::isfinite(trainer.history().at(0).train_loss)) << extra;
  }
}

TEST(SampleGroupFiles, TakeTheirNamesFromTheConfig) {
  const std::string dir = temp_dir("ornl_names");
  write_file(dir + "/mine_a.h5", {{"s0", "2", 0, "X", 0}});
  write_file(dir + "/held_out.h5", {{"s0", "14", 0, "Y", 0}});
  exadnn::train::DataSpec spec;
  spec.dataset = "cbed-crystal-system";
  spec.path = dir;
  spec.layout = {{"format", "sample_groups"}, {"train", "mine_*.h5"}, {"test", "held_out.h5"}};
  const exadnn::train::TrainingData data = exadnn::train::load_training_data(spec);
  EXPECT_EQ(data.train->get(0).targets.data<int64_t>()[0], int64_t(CrystalSystem::triclinic));
  EXPECT_EQ(data.test->get(0).targets.data<int64_t>()[0], int64_t(CrystalSystem::monoclinic));
  spec.layout["space_group"] = "sg";  // the files have no attribute 'sg'
  const std::string e = error_of([&] { exadnn::train::load_training_data(spec); });
  EXPECT_NE(e.find("mine_a.h5: group 's0' has no attribute 'sg'"), std::string::npos) << e;
}

// Each malformed file is refused naming the file, the group and the value.
TEST(SampleGroupFiles, RefuseBadFilesNamingFileGroupAndValue) {
  const std::string dir = temp_dir("ornl_bad");
  const FileLayout layout = FileLayout::sample_groups();
  auto refusal = [&](const std::vector<Sample>& samples) {
    const std::string path = dir + "/batch_train_0.h5";
    write_file(path, samples);
    return error_of([&] { ShardSet({path}, layout); });
  };
  std::string e = refusal({{"sample_0_0", "225", 0, "Cu", 0}, {"sample_3_1", "231", 0, "Fe", 0}});
  EXPECT_NE(e.find("batch_train_0.h5: group 'sample_3_1' has space group 231, outside 1..230"),
            std::string::npos)
      << e;
  e = refusal({{"sample_0_0", "P4/mmm", 0, "Cu", 0}});
  EXPECT_NE(e.find("group 'sample_0_0' has space group 'P4/mmm', not a number"), std::string::npos)
      << e;
  e = refusal({{"sample_0_0", "", 0, "Cu", 0}});  // integer 0
  EXPECT_NE(e.find("has space group 0, outside 1..230"), std::string::npos) << e;
  Sample no_stack{"sample_0_0", "225", 0, "Cu", 0};
  no_stack.with_stack = false;
  e = refusal({no_stack});
  EXPECT_NE(e.find("batch_train_0.h5 has no dataset 'sample_0_0/cbed_stack'"), std::string::npos)
      << e;
  Sample two_patterns{"sample_0_0", "225", 0, "Cu", 0};
  two_patterns.dims = {2, kSize, kSize};
  e = refusal({two_patterns});
  EXPECT_NE(e.find("'sample_0_0/cbed_stack' is [2, 8, 8], not [3, H, W]"), std::string::npos) << e;
  Sample smaller{"sample_0_1", "225", 0, "Cu", 0};
  smaller.dims = {3, 4, 4};
  e = refusal({{"sample_0_0", "225", 0, "Cu", 0}, smaller});
  EXPECT_NE(e.find("'sample_0_1/cbed_stack' is 3 x 4 x 4, the file's first 8 x 8"),
            std::string::npos)
      << e;
  e = refusal({});
  EXPECT_NE(e.find("holds no sample groups"), std::string::npos) << e;
  e = error_of([&] { ShardSet::open_split(dir, Split::test, layout); });
  EXPECT_NE(e.find("no batch_test_*.h5 files in " + dir), std::string::npos) << e;
}

TEST(SampleGroupFiles, ConfigLayoutsThatCannotHoldAreRefusedNamingTheKey) {
  auto parse_error = [](const std::string& data) {
    return error_of([&] {
      exadnn::train::parse_config("data: " + data +
                                      "\nmodel: [flatten, {linear: {out: 7}}]\n"
                                      "loss: cross_entropy\noptimizer: {name: sgd, lr: 0.1}\n",
                                  "bad.yaml");
    });
  };
  std::string e = parse_error("{dataset: cbed-space-group, path: d, layout: {format: ornl}}");
  EXPECT_NE(e.find("data.layout.format 'ornl' is unknown (allowed: shards, sample_groups)"),
            std::string::npos)
      << e;
  e = parse_error("{dataset: cbed-space-group, path: d, layout: {patterns: cbed_stack}}");
  EXPECT_NE(e.find("data.layout.patterns ('cbed_stack') names a dataset or attribute of format "
                   "sample_groups"),
            std::string::npos)
      << e;
  e = parse_error("{dataset: cbed-space-group, path: d, layout: {labels: x}}");
  EXPECT_NE(e.find("unknown key 'labels' in data.layout"), std::string::npos) << e;
  e = parse_error("{dataset: fashion-mnist, layout: {format: sample_groups}}");
  EXPECT_NE(e.find("dataset 'fashion-mnist' takes no 'data.layout'"), std::string::npos) << e;
  e = parse_error("{dataset: cbed-space-group, path: d, layout: {patterns: ''}}");
  EXPECT_NE(e.find("'data.layout.patterns' is empty"), std::string::npos) << e;
}

}  // namespace
}  // namespace cbed::shard
