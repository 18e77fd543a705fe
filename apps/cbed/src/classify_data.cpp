#include "cbed/classify_data.h"

#include <exadnn/core/error.h>
#include <exadnn/ops/factories.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <set>
#include <thread>

#include "cbed/pattern_scale.h"
#include "cbed/space_group.h"

namespace cbed {
namespace {

constexpr const char* kWhere = "cbed::make_classify_data";

// A uniform number in [0, 1) per (seed, material, salt) (splitmix64's finaliser).
double unit(uint64_t seed, int64_t material, uint64_t salt) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ull + uint64_t(material) * 0xbf58476d1ce4e5b9ull + salt;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return double((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

}  // namespace

ClassifyData make_classify_data(const ClassifyDataOptions& o) {
  EXADNN_CHECK(o.materials > 0 && !o.generate.groups.empty(), kWhere, o.materials, " materials of ",
               o.generate.groups.size(), " groups: both must be positive");
  EXADNN_CHECK(o.test_fraction > 0 && o.test_fraction < 1, kWhere, "test_fraction ",
               o.test_fraction, " is outside (0, 1)");
  EXADNN_CHECK(o.imbalance >= 1, kWhere, "imbalance ", o.imbalance, " is below 1");
  ClassifyData out;
  // The classes and each group's class.
  const std::set<int> groups(o.generate.groups.begin(), o.generate.groups.end());
  std::vector<int> class_of_group(231, -1);
  if (o.task == ClassifyTask::crystal_system) {
    for (int s = 0; s < 7; ++s) out.class_names.push_back(crystal_system_name(CrystalSystem(s)));
    for (int g : groups) class_of_group[size_t(g)] = int(crystal_system(g));
  } else {
    for (int g : groups) {
      class_of_group[size_t(g)] = int(out.class_names.size());
      out.class_names.push_back(std::to_string(g));
    }
  }
  const int64_t classes = int64_t(out.class_names.size());
  // Which materials to make, and for which split.
  struct Job {
    int64_t material;
    bool test;
    int64_t label;
  };
  std::vector<Job> candidates;
  std::vector<int64_t> available(size_t(classes), 0);  // training candidates per class
  for (int64_t m = 0; m < o.materials; ++m) {
    const int group = o.generate.groups[size_t(m % int64_t(o.generate.groups.size()))];
    const int64_t label = class_of_group[size_t(group)];
    const bool test = unit(o.generate.seed, m, 11) < o.test_fraction;
    candidates.push_back({m, test, label});
    if (!test) ++available[size_t(label)];
  }
  // Training quotas n_c = A r^(-c / (K - 1)), A as large as the candidates allow (imbalance 1:
  // each class keeps all of its candidates).
  std::vector<int64_t> quota = available;
  if (o.imbalance > 1 && classes > 1) {
    double a = HUGE_VAL;
    const auto ratio = [&](int64_t c) { return std::pow(o.imbalance, -double(c) / (classes - 1)); };
    for (int64_t c = 0; c < classes; ++c)
      if (available[size_t(c)] > 0) a = std::min(a, double(available[size_t(c)]) / ratio(c));
    for (int64_t c = 0; c < classes; ++c)
      quota[size_t(c)] = std::min(available[size_t(c)], int64_t(std::lround(a * ratio(c))));
  }
  std::vector<Job> jobs;
  for (const Job& j : candidates)
    if (j.test || quota[size_t(j.label)]-- > 0) jobs.push_back(j);
  // Generate in parallel; each job writes its own slot.
  std::vector<GeneratedSample> samples(jobs.size());
  std::atomic<size_t> next{0};
  std::mutex failure_mutex;
  std::string failure;
  const unsigned workers =
      o.threads > 0 ? unsigned(o.threads) : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (size_t j; (j = next++) < jobs.size();) {
        try {
          samples[j] = generate_material(jobs[j].material, o.generate);
          log_scale_patterns(samples[j].patterns.data(), 3, int64_t(samples[j].patterns.size() / 3),
                             o.log_decades);
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          failure = e.what();
        }
      }
    });
  for (auto& t : pool) t.join();
  EXADNN_CHECK(failure.empty(), kWhere, failure);
  // Assemble the two splits.
  const int64_t ny = o.generate.stack.multislice.grid.ny, nx = o.generate.stack.multislice.grid.nx;
  for (size_t j = 0; j < jobs.size(); ++j)
    EXADNN_CHECK(int64_t(samples[j].patterns.size()) == 3 * ny * nx, kWhere, "material ",
                 jobs[j].material, " has ", samples[j].patterns.size(), " pixels, not 3 x ", ny,
                 " x ", nx);
  out.train_counts.assign(size_t(classes), 0);
  for (int split = 0; split < 2; ++split) {
    std::vector<float> x;
    std::vector<int64_t> y;
    for (size_t j = 0; j < jobs.size(); ++j) {
      if (jobs[j].test != (split == 1)) continue;
      x.insert(x.end(), samples[j].patterns.begin(), samples[j].patterns.end());
      y.push_back(jobs[j].label);
      if (split == 0) ++out.train_counts[size_t(jobs[j].label)];
    }
    EXADNN_CHECK(!y.empty(), kWhere, "the ", split ? "test" : "training",
                 " split is empty; generate more materials");
    const int64_t n = int64_t(y.size());
    auto set = std::make_shared<exadnn::data::TensorDataset>(
        exadnn::from_vector<float>(x, {n, 3, ny, nx}), exadnn::from_vector<int64_t>(y, {n}));
    (split ? out.test : out.train) = set;
  }
  for (const GeneratedSample& s : samples) {
    out.stats.attempts += s.stats.attempts;
    out.stats.accepted += s.stats.accepted;
    out.stats.rejected_distance += s.stats.rejected_distance;
    out.stats.rejected_symmetry += s.stats.rejected_symmetry;
  }
  return out;
}

}  // namespace cbed
