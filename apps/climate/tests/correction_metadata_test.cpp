// The correction's architecture through a checkpoint's metadata: what is written is read back to
// the same options (dilations included), a checkpoint from before the dilations were stored
// means plain convolutions, and a foreign or malformed entry is refused with the file and the
// entry named.
#include <gtest/gtest.h>

#include <exadnn/core/error.h>

#include <string>

#include "climate/correction_metadata.h"

namespace climate {
namespace {

std::string refusal(const Metadata& m) {
  try {
    correction_options(m, 3, "net.ckpt");
  } catch (const exadnn::Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(CorrectionMetadata, WhatIsWrittenIsReadBack) {
  const CorrectionOptions written{
      .fields = 3, .width = 12, .depth = 5, .dilations = {1, 2, 4, 2, 1}, .periods = {5, 16}};
  const Metadata m = correction_metadata(written);
  EXPECT_EQ(m.at("dilations"), "1,2,4,2,1");
  const CorrectionOptions read = correction_options(m, 3, "net.ckpt");
  EXPECT_EQ(read.fields, 3);
  EXPECT_EQ(read.width, 12);
  EXPECT_EQ(read.depth, 5);
  EXPECT_EQ(read.dilations, written.dilations);
  EXPECT_EQ(read.periods, written.periods);
  EXPECT_EQ(correction_options(correction_metadata({.depth = 3}), 3, "x").dilations.size(), 0u);
  const CorrectionOptions unet =
      correction_options(correction_metadata({.width = 8, .levels = 2, .halo = 9}), 3, "x");
  EXPECT_EQ(unet.levels, 2);
  EXPECT_EQ(unet.halo, 9);
}

TEST(CorrectionMetadata, ACheckpointFromBeforeTheUNetMeansThePlainCnn) {
  Metadata m = correction_metadata({.width = 8, .depth = 3, .levels = 2, .halo = 8});
  m.erase("levels");
  m.erase("halo");
  const CorrectionOptions read = correction_options(m, 3, "old.ckpt");
  EXPECT_EQ(read.levels, 0);
  EXPECT_EQ(read.halo, 0);
  m["levels"] = "two";
  EXPECT_NE(refusal(m).find("'levels' is 'two'"), std::string::npos) << refusal(m);
}

TEST(CorrectionMetadata, ACheckpointFromBeforeTheDilationsMeansPlainConvolutions) {
  Metadata m = correction_metadata({.width = 8, .depth = 3, .periods = {4}});
  m.erase("dilations");
  const CorrectionOptions read = correction_options(m, 3, "old.ckpt");
  EXPECT_TRUE(read.dilations.empty());
  EXPECT_EQ(read.periods, std::vector<int>{4});
}

TEST(CorrectionMetadata, AForeignOrMalformedEntryIsRefusedByName) {
  const Metadata good = correction_metadata({.width = 8, .depth = 3});
  Metadata m = good;
  m["kind"] = "trainer_state";
  EXPECT_NE(refusal(m).find("net.ckpt holds a 'trainer_state'"), std::string::npos) << refusal(m);
  m = good;
  m.erase("width");
  EXPECT_NE(refusal(m).find("net.ckpt has no 'width'"), std::string::npos) << refusal(m);
  m = good;
  m["depth"] = "3x";
  EXPECT_NE(refusal(m).find("'depth' is '3x'"), std::string::npos) << refusal(m);
  m = good;
  m["dilations"] = "1,,2";
  EXPECT_NE(refusal(m).find("'dilations' is ''"), std::string::npos) << refusal(m);
  EXPECT_THROW(whole_numbers("1,two", "the dilations"), exadnn::Error);
  EXPECT_EQ(whole_numbers("", "the dilations"), std::vector<int>{});
}

}  // namespace
}  // namespace climate
