#include "cbed/shard_layout.h"

#include <exadnn/core/error.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "cbed/rng.h"

namespace cbed::shard {

const char* split_name(Split split) {
  switch (split) {
    case Split::train:
      return "train";
    case Split::val:
      return "val";
    case Split::test:
      return "test";
  }
  return "?";
}

std::string shard_file_name(Split split, int shard) {
  char name[64];
  std::snprintf(name, sizeof name, "cbed_%s_%03d.h5", split_name(split), shard);
  return name;
}

std::array<int64_t, 2> rank_rows(int64_t count, int rank, int ranks) {
  return {count * rank / ranks, count * (rank + 1) / ranks};
}

std::vector<int64_t> SplitPlan::shard_materials(Split split, int shard) const {
  const auto& all = materials[int(split)];
  const int n = shards[int(split)];
  EXADNN_CHECK(shard >= 0 && shard < n, "cbed::shard", "split ", split_name(split), " has ", n,
               " shards, not shard ", shard);
  const auto [begin, end] = rank_rows(int64_t(all.size()), shard, n);
  return {all.begin() + begin, all.begin() + end};
}

SplitPlan plan_splits(int64_t materials, double train_fraction, double val_fraction,
                      std::array<int, 3> shards, uint64_t seed) {
  EXADNN_CHECK(materials >= 1, "cbed::shard", "materials must be >= 1, not ", materials);
  EXADNN_CHECK(train_fraction >= 0 && val_fraction >= 0 && train_fraction + val_fraction <= 1,
               "cbed::shard", "split fractions train ", train_fraction, " and val ", val_fraction,
               " must be in [0, 1] and sum to at most 1");
  std::vector<int64_t> order(materials);
  for (int64_t i = 0; i < materials; ++i) order[i] = i;
  Rng rng(seed ^ 0x5bd1e995u);
  for (int64_t i = materials - 1; i > 0; --i)  // Fisher-Yates with the application's own draw
    std::swap(order[i], order[int64_t(rng.uniform() * (i + 1))]);
  const int64_t n_train = std::llround(materials * train_fraction);
  const int64_t n_val =
      std::min(materials - n_train, int64_t(std::llround(materials * val_fraction)));
  SplitPlan plan;
  plan.shards = shards;
  const int64_t bounds[4] = {0, n_train, n_train + n_val, materials};
  for (int s = 0; s < 3; ++s) {
    auto& list = plan.materials[s];
    list.assign(order.begin() + bounds[s], order.begin() + bounds[s + 1]);
    std::sort(list.begin(), list.end());
    EXADNN_CHECK(shards[s] >= 1 && shards[s] <= std::max<int64_t>(1, list.size()), "cbed::shard",
                 "split ", split_name(Split(s)), " has ", list.size(), " materials for ", shards[s],
                 " shards (need 1 .. materials)");
  }
  return plan;
}

std::vector<int> parse_groups(const std::string& list) {
  std::vector<int> groups;
  std::stringstream items(list);
  std::string item;
  auto number = [&](const std::string& text) {
    size_t used = 0;
    int n = 0;
    try {
      n = std::stoi(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    EXADNN_CHECK(used == text.size() && n >= 1 && n <= 230, "cbed::shard", "space group '", text,
                 "' in '", list, "' is not a number 1..230");
    return n;
  };
  while (std::getline(items, item, ',')) {
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    const size_t dash = item.find('-');
    if (dash == std::string::npos) {
      groups.push_back(number(item));
      continue;
    }
    const int lo = number(item.substr(0, dash)), hi = number(item.substr(dash + 1));
    EXADNN_CHECK(lo <= hi, "cbed::shard", "space-group range '", item, "' runs backwards");
    for (int g = lo; g <= hi; ++g) groups.push_back(g);
  }
  EXADNN_CHECK(!groups.empty(), "cbed::shard", "no space groups in '", list, "'");
  return groups;
}

}  // namespace cbed::shard
