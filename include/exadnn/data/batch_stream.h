// BatchStream: batches that come in the order a source reads them (an out-of-core loader that
// shuffles within a bounded buffer), not drawn by index from a Dataset. A DataLoader built over
// one hands its batches out as they come; see DataLoader's stream constructor.
#pragma once

#include <cstdint>
#include <optional>

#include "exadnn/data/dataset.h"

namespace exadnn::data {

class BatchStream {
 public:
  virtual ~BatchStream() = default;
  /// Batches every epoch yields (the same on every data-parallel rank).
  virtual int64_t batches_per_epoch() const = 0;
  /// Starts epoch `epoch` (its order depends on the stream's seed and `epoch`), ending any epoch
  /// under way.
  virtual void start_epoch(int64_t epoch) = 0;
  /// The next batch of the epoch ([B, ...] inputs and targets), or nothing at its end.
  virtual std::optional<Batch> next() = 0;
};

}  // namespace exadnn::data
