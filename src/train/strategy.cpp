#include "exadnn/train/strategy.h"

namespace exadnn::train {

EpochTotals Strategy::train_epoch(data::DataLoader& loader, int64_t epoch, const BatchStep& step) {
  EpochTotals totals;
  for_each_batch(loader, epoch, [&](const data::Batch& batch) {
    totals.loss_sum += step(batch);
    ++totals.batches;
    totals.examples += batch.size();
  });
  return totals;
}

void Strategy::for_each_batch(data::DataLoader& loader, int64_t /*epoch*/,
                              const std::function<void(const data::Batch&)>& use) {
  for (const data::Batch& batch : loader) use(batch);
}

}  // namespace exadnn::train
