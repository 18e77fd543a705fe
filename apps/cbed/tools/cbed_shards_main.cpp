// exadnn_cbed_shards: looks at a CBED dataset through the loader (the serial libhdf5 that
// `exadnn train` reads with), in either file format (file_layout.h: `shards`, the generator's,
// or `sample_groups`, the ORNL files).
//   exadnn_cbed_shards check DIR [--materials M] [--size H] [--format F]
//                      every split opens and is checked (ShardSet), the splits share no material,
//                      every pattern value is finite; prints a line per split and the time it took.
//                      shards: material ids together 0..M-1 (--materials required) and values
//                      >= 0. sample_groups: materials are the groups' `material` names (M, when
//                      given, is their expected count; a material in two splits is a warning, not
//                      an error); values may be negative
//   exadnn_cbed_shards picture DIR SPLIT ROW OUT.png [--scale S] [--format F]
//                      one sample's stack as a PNG
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

#include "cbed/loader.h"
#include "cbed/shard_picture.h"

namespace {

using namespace cbed::shard;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::optional<std::array<int, 2>> size_option(int size) {
  if (size <= 0) return std::nullopt;
  return std::array<int, 2>{size, size};
}

int check(const std::string& dir, int64_t materials, int size, const FileLayout& layout) {
  const bool ours = layout.format == FileLayout::Format::shards;
  EXADNN_CHECK(!ours || materials > 0, "check", "--materials is required for the shards format");
  const auto start = std::chrono::steady_clock::now();
  std::set<int64_t> seen;
  int64_t overlapping = 0;
  for (Split split : {Split::train, Split::val, Split::test}) {
    const ShardSet set = ShardSet::open_split(dir, split, layout, size_option(size));
    const double opened = seconds_since(start);
    std::set<int> groups(set.space_groups().begin(), set.space_groups().end());
    std::set<int64_t> here(set.material_ids().begin(), set.material_ids().end());
    int64_t shared = 0;  // materials of this split seen in an earlier one
    for (int64_t id : here) {
      EXADNN_CHECK(!ours || (id >= 0 && id < materials), "check", dir, ": material id ", id,
                   " is outside 0..", materials - 1);
      const bool first_time = seen.insert(id).second;
      EXADNN_CHECK(first_time || !ours, "check", dir, ": material ", id, " of split ",
                   split_name(split), " appears in an earlier split (splits must be disjoint)");
      shared += first_time ? 0 : 1;
    }
    const size_t per = size_t(3) * set.height() * set.width();
    std::vector<float> rows(per);
    for (int f = 0; f < int(set.files().size()); ++f)
      for (int64_t r = 0; r < set.files()[f].samples; ++r) {
        set.read_rows(f, r, 1, rows.data());
        for (size_t i = 0; i < per; ++i)
          EXADNN_CHECK(std::isfinite(rows[i]) && (!ours || rows[i] >= 0), "check",
                       set.files()[f].path, ": row ", r, " value ", i, " is ", rows[i]);
      }
    std::printf(
        "%s: %zu files, %lld samples [%lld, 3, %d, %d], %zu materials, %zu space groups "
        "(labels read at %.2f s, patterns at %.2f s)\n",
        split_name(split), set.files().size(), (long long)set.size(), (long long)set.size(),
        set.height(), set.width(), here.size(), groups.size(), opened, seconds_since(start));
    if (shared > 0)  // sample_groups only: reported, since those files are not ours to fix
      std::printf("  warning: %lld of its materials also appear in an earlier split\n",
                  (long long)shared);
    overlapping += shared;
  }
  EXADNN_CHECK(materials <= 0 || int64_t(seen.size()) == materials, "check", dir, ": ", seen.size(),
               " materials over all splits, expected ", materials);
  if (overlapping == 0)
    std::printf("splits disjoint by material: %zu materials, each in one split\n", seen.size());
  else
    std::printf("splits NOT disjoint by material: %zu materials, %lld in more than one split\n",
                seen.size(), (long long)overlapping);
  return 0;
}

int picture(const std::string& dir, const std::string& split_text, int64_t row,
            const std::string& out, int scale, const FileLayout& layout) {
  Split split = Split::train;
  for (Split s : {Split::train, Split::val, Split::test})
    if (split_text == split_name(s)) split = s;
  const ShardSet set = ShardSet::open_split(dir, split, layout);
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
  CLI::App app{"exadnn_cbed_shards: check a CBED dataset's files, or draw a sample"};
  app.require_subcommand(1);
  std::string dir, split = "train", out, format = "shards";
  int64_t materials = 0, row = 0;
  int size = 0, scale = 1;
  auto* c = app.add_subcommand("check", "check every split of a shard folder");
  c->add_option("dir", dir, "shard folder")->required();
  c->add_option(
      "--materials", materials,
      "materials of the run (required for shards; for sample_groups, the expected count)");
  c->add_option("--size", size, "expected pattern size (H = W)");
  c->add_option("--format", format, "shards (default) or sample_groups (the ORNL files)")
      ->check(CLI::IsMember({"shards", "sample_groups"}));
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
    const FileLayout layout = FileLayout::from_config({{"format", format}});
    return c->parsed() ? check(dir, materials, size, layout)
                       : picture(dir, split, row, out, scale, layout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exadnn_cbed_shards: %s\n", e.what());
    return 1;
  }
}
