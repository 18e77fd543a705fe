// exadnn_cbed_shards: looks at a generated dataset through the loader (the serial libhdf5 that
// `exadnn train` reads with).
//   exadnn_cbed_shards check DIR --materials M [--size H]   every split opens and is checked
//                      (ShardSet), the splits' material ids are disjoint and together 0..M-1, every
//                      pattern value is finite and >= 0; prints a line per split
//   exadnn_cbed_shards picture DIR SPLIT ROW OUT.png [--scale S] [--format sample_groups]
//                      one sample's stack as a PNG (of the ORNL files too: file_layout.h)
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <set>

#include "cbed/loader.h"
#include "cbed/shard_picture.h"

namespace {

using namespace cbed::shard;

std::optional<std::array<int, 2>> size_option(int size) {
  if (size <= 0) return std::nullopt;
  return std::array<int, 2>{size, size};
}

int check(const std::string& dir, int64_t materials, int size) {
  std::set<int64_t> seen;
  for (Split split : {Split::train, Split::val, Split::test}) {
    const ShardSet set = ShardSet::open_split(dir, split, size_option(size));
    std::set<int> groups(set.space_groups().begin(), set.space_groups().end());
    for (int64_t id : set.material_ids()) {
      EXADNN_CHECK(id >= 0 && id < materials, "check", dir, ": material id ", id, " is outside 0..",
                   materials - 1);
      EXADNN_CHECK(seen.insert(id).second, "check", dir, ": material ", id,
                   " appears twice (splits must be disjoint by material)");
    }
    const size_t per = size_t(3) * set.height() * set.width();
    std::vector<float> rows(per);
    for (int f = 0; f < int(set.files().size()); ++f)
      for (int64_t r = 0; r < set.files()[f].samples; ++r) {
        set.read_rows(f, r, 1, rows.data());
        for (size_t i = 0; i < per; ++i)
          EXADNN_CHECK(std::isfinite(rows[i]) && rows[i] >= 0, "check", set.files()[f].path,
                       ": row ", r, " value ", i, " is ", rows[i]);
      }
    std::printf("%s: %zu shards, %lld samples [%lld, 3, %d, %d], %zu space groups\n",
                split_name(split), set.files().size(), (long long)set.size(), (long long)set.size(),
                set.height(), set.width(), groups.size());
  }
  EXADNN_CHECK(int64_t(seen.size()) == materials, "check", dir, ": ", seen.size(),
               " materials over all splits, expected ", materials);
  std::printf("splits disjoint by material: %zu materials, each once\n", seen.size());
  return 0;
}

int picture(const std::string& dir, const std::string& split_text, int64_t row,
            const std::string& out, int scale, const std::string& format) {
  Split split = Split::train;
  for (Split s : {Split::train, Split::val, Split::test})
    if (split_text == split_name(s)) split = s;
  const ShardSet set =
      ShardSet::open_split(dir, split, FileLayout::from_config({{"format", format}}));
  const auto [f, r] = set.locate(row);
  std::vector<float> stack(size_t(3) * set.height() * set.width());
  set.read_rows(f, r, 1, stack.data());
  write_stack_png(out, stack.data(), set.height(), set.width(), scale);
  std::printf("%s: %s row %lld (space group %d, material %lld)\n", out.c_str(),
              set.files()[f].path.c_str(), (long long)r, set.space_groups()[row],
              (long long)set.material_ids()[row]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"exadnn_cbed_shards: check a CBED dataset's shards, or draw a sample"};
  app.require_subcommand(1);
  std::string dir, split = "train", out, format = "shards";
  int64_t materials = 0, row = 0;
  int size = 0, scale = 1;
  auto* c = app.add_subcommand("check", "check every split of a shard folder");
  c->add_option("dir", dir, "shard folder")->required();
  c->add_option("--materials", materials, "materials of the run")->required();
  c->add_option("--size", size, "expected pattern size (H = W)");
  auto* p = app.add_subcommand("picture", "one sample's three patterns as a PNG");
  p->add_option("dir", dir, "shard folder")->required();
  p->add_option("split", split, "train, val or test")->required();
  p->add_option("row", row, "sample index within the split")->required();
  p->add_option("out", out, "PNG file")->required();
  p->add_option("--scale", scale, "enlargement");
  p->add_option("--format", format, "shards (default) or sample_groups (the ORNL files)")
      ->check(CLI::IsMember({"shards", "sample_groups"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return c->parsed() ? check(dir, materials, size) : picture(dir, split, row, out, scale, format);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exadnn_cbed_shards: %s\n", e.what());
    return 1;
  }
}
