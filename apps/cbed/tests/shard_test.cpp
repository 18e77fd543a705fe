// The shard layout's split plan, the writer and the loader's ShardSet/ShardDataset: a round trip,
// and every bad input the loader must name (missing, truncated, label out of range, shapes).
#include <gtest/gtest.h>

#include <exadnn/data/data_loader.h>
#include <exadnn/train/datasets.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "cbed/loader.h"
#include "cbed/shard_picture.h"
#include "shard_test_util.h"

namespace cbed::shard {
namespace {

using testing::error_of;
using testing::temp_dir;
using testing::write_test_shard;

TEST(ShardLayout, SplitsAreDisjointByMaterialAndCoverThemAll) {
  const SplitPlan plan = plan_splits(103, 0.8, 0.1, {3, 2, 1}, 5);
  EXPECT_EQ(plan.materials[0].size(), 82u);
  EXPECT_EQ(plan.materials[1].size(), 10u);
  EXPECT_EQ(plan.materials[2].size(), 11u);
  std::set<int64_t> seen;
  for (int s = 0; s < 3; ++s)
    for (int k = 0; k < plan.shards[s]; ++k)
      for (int64_t m : plan.shard_materials(Split(s), k)) EXPECT_TRUE(seen.insert(m).second) << m;
  EXPECT_EQ(seen.size(), 103u);
  EXPECT_EQ(*seen.rbegin(), 102);
  // Another seed gives another assignment; the same seed the same one.
  EXPECT_NE(plan_splits(103, 0.8, 0.1, {3, 2, 1}, 6).materials[1], plan.materials[1]);
  EXPECT_EQ(plan_splits(103, 0.8, 0.1, {3, 2, 1}, 5).materials[1], plan.materials[1]);
  EXPECT_NE(error_of([] {
              plan_splits(10, 0.9, 0.2, {1, 1, 1}, 1);
            }).find("sum to at most 1"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              plan_splits(10, 0.8, 0.1, {1, 2, 1}, 1);
            }).find("split val has 1"),
            std::string::npos);
}

TEST(ShardLayout, RankRowsAreNearEqualBlocks) {
  EXPECT_EQ(rank_rows(5, 0, 2), (std::array<int64_t, 2>{0, 2}));
  EXPECT_EQ(rank_rows(5, 1, 2), (std::array<int64_t, 2>{2, 5}));
  EXPECT_EQ(rank_rows(1, 0, 2), (std::array<int64_t, 2>{0, 0}));  // a rank may get none
}

TEST(ShardLayout, SpaceGroupListsParseAndNameBadItems) {
  EXPECT_EQ(parse_groups("225, 1-3,194"), (std::vector<int>{225, 1, 2, 3, 194}));
  EXPECT_EQ(parse_groups("1-230").size(), 230u);
  EXPECT_NE(error_of([] { parse_groups("1,231"); }).find("'231'"), std::string::npos);
  EXPECT_NE(error_of([] { parse_groups("x"); }).find("'x'"), std::string::npos);
  EXPECT_NE(error_of([] { parse_groups("9-3"); }).find("backwards"), std::string::npos);
}

TEST(ShardFiles, RoundTripThroughTheLoader) {
  const std::string dir = temp_dir("roundtrip");
  write_test_shard(dir, Split::train, 0, 0, 5, 8, 2);
  write_test_shard(dir, Split::train, 1, 5, 3, 8, 2);
  auto set = std::make_shared<const ShardSet>(ShardSet::open_split(dir, Split::train, {{8, 8}}));
  ASSERT_EQ(set->size(), 8);
  EXPECT_EQ(set->files().size(), 2u);
  EXPECT_EQ(set->files()[0].chunk_rows, 2);
  EXPECT_EQ(set->material_ids(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(set->space_groups()[1], 194);
  EXPECT_EQ(set->target(1, Target::space_group), 193);
  EXPECT_EQ(set->target(1, Target::crystal_system), int(CrystalSystem::hexagonal));

  ShardDataset data(set, Target::space_group);
  EXPECT_EQ(data.input_shape(), (exadnn::Shape{3, 8, 8}));
  exadnn::data::DataLoader loader(std::make_shared<ShardDataset>(set, Target::space_group),
                                  exadnn::data::DataLoaderOptions().batch_size(3).shuffle(true));
  std::multiset<int64_t> seen;
  for (const exadnn::data::Batch& b : loader)
    for (int64_t i = 0; i < b.size(); ++i) {
      const float* x = b.inputs.data<float>() + i * 3 * 64;
      const int64_t id = int64_t(x[0]);
      EXPECT_EQ(x[3 * 64 - 1], x[0]);  // the whole stack is the sample's
      EXPECT_EQ(b.targets.data<int64_t>()[i], set->space_groups()[id] - 1);
      seen.insert(id);
    }
  EXPECT_EQ(seen, (std::multiset<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(ShardFiles, MissingShardIsNamed) {
  const std::string dir = temp_dir("missing");
  EXPECT_NE(error_of([&] {
              ShardSet({dir + "/cbed_train_007.h5"});
            }).find("shard " + dir + "/cbed_train_007.h5 does not exist"),
            std::string::npos);
  EXPECT_NE(error_of([&] { ShardSet::open_split(dir, Split::val); }).find("no cbed_val_*.h5"),
            std::string::npos);
}

TEST(ShardFiles, TruncatedShardIsNamed) {
  const std::string dir = temp_dir("truncated");
  write_test_shard(dir, Split::train, 0, 0, 6, 16);
  const std::string path = dir + "/" + shard_file_name(Split::train, 0);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  const std::string e = error_of([&] { ShardSet({path}); });
  EXPECT_NE(e.find("shard " + path), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
}

TEST(ShardFiles, LabelOutOfRangeIsNamedWithItsRow) {
  const std::string dir = temp_dir("labels");
  write_test_shard(dir, Split::test, 0, 0, 4, 8, 1, {225, 231});
  const std::string e = error_of([&] { ShardSet::open_split(dir, Split::test); });
  EXPECT_NE(e.find("cbed_test_000.h5: row 1 has space group 231, outside 1..230"),
            std::string::npos)
      << e;
}

TEST(ShardFiles, ShapeMismatchIsNamed) {
  const std::string dir = temp_dir("shapes");
  write_test_shard(dir, Split::train, 0, 0, 2, 8);
  write_test_shard(dir, Split::train, 1, 2, 2, 16);
  std::string e = error_of([&] { ShardSet::open_split(dir, Split::train); });
  EXPECT_NE(e.find("cbed_train_001.h5: patterns are 16 x 16, the first shard's 8 x 8"),
            std::string::npos)
      << e;
  e = error_of([&] { ShardSet({dir + "/cbed_train_000.h5"}, {{64, 64}}); });
  EXPECT_NE(e.find("patterns are 8 x 8, the model expects 64 x 64"), std::string::npos) << e;
}

TEST(ShardFiles, StackPictureIsAPng) {
  const std::string dir = temp_dir("picture");
  std::vector<float> stack(3 * 4 * 4, 0.0f);
  stack[5] = 1;
  write_stack_png(dir + "/s.png", stack.data(), 4, 4, 2);
  std::ifstream in(dir + "/s.png", std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

}  // namespace
}  // namespace cbed::shard

namespace cbed::shard {
namespace {

TEST(ShardFiles, AreDatasetKindsOfTrainingConfigs) {
  const std::string dir = testing::temp_dir("kind");
  testing::write_test_shard(dir, Split::train, 0, 0, 6);
  testing::write_test_shard(dir, Split::test, 0, 6, 2);
  exadnn::train::DataSpec spec;
  spec.dataset = "cbed-crystal-system";
  spec.path = dir;
  const exadnn::train::TrainingData data = exadnn::train::load_training_data(spec);
  EXPECT_EQ(data.train->size(), 6);
  EXPECT_EQ(data.test->size(), 2);
  EXPECT_EQ(data.train->input_shape(), (exadnn::Shape{3, 8, 8}));
  EXPECT_EQ(data.train->get(1).targets.data<int64_t>()[0], int64_t(CrystalSystem::hexagonal));
  // The metrics name the classes: label k is the k-th crystal system, or space group k + 1.
  const std::vector<std::string> systems = exadnn::train::class_names(spec);
  ASSERT_EQ(systems.size(), 7u);
  EXPECT_EQ(systems[size_t(CrystalSystem::hexagonal)], "hexagonal");
  spec.dataset = "cbed-space-group";
  EXPECT_EQ(exadnn::train::load_training_data(spec).test->get(0).targets.data<int64_t>()[0], 224);
  const std::vector<std::string> groups = exadnn::train::class_names(spec);
  ASSERT_EQ(groups.size(), 230u);
  EXPECT_EQ(groups[224], "225");
  spec.path = dir + "/nowhere";
  try {
    exadnn::train::load_training_data(spec);
    FAIL();
  } catch (const exadnn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("shard folder " + dir + "/nowhere does not exist"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cbed::shard
