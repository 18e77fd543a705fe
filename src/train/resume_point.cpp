#include "exadnn/train/resume_point.h"

#include <nlohmann/json.hpp>

#include "exadnn/core/error.h"
#include "exadnn/io/checkpoint_fields.h"
#include "exadnn/ops/factories.h"

namespace exadnn::train {

ResumePoint read_resume_point(const io::Checkpoint& ckpt) {
  ResumePoint r;
  r.epoch = io::checkpoint_int(ckpt, "epoch", 0);
  for (const std::vector<double>& row : io::checkpoint_table(ckpt, "history", 5))
    r.history.push_back({static_cast<int64_t>(row[0]), row[1], row[2], row[3], row[4]});
  EXADNN_CHECK(static_cast<int64_t>(r.history.size()) <= r.epoch, "checkpoint", ckpt.path,
               ": metadata field 'history' lists ", r.history.size(), " epochs, more than the ",
               r.epoch, " finished");
  const std::vector<int64_t> rng =
      to_vector<int64_t>(io::checkpoint_tensor(ckpt, "rng", DType::i64, {2}));  // seed, offset
  r.rng_seed = static_cast<uint64_t>(rng[0]);
  r.rng_offset = static_cast<uint64_t>(rng[1]);
  return r;
}

std::string history_json(const std::vector<EpochRecord>& history) {
  nlohmann::json h = nlohmann::json::array();
  for (const auto& e : history)
    h.push_back({e.epoch, e.train_loss, e.test_accuracy, e.samples_per_second, e.seconds});
  return h.dump();
}

}  // namespace exadnn::train
