// The learned correction's architecture as a checkpoint's metadata (text entries beside the
// weights), so that the network stored by the in-situ trainer is rebuilt exactly by whoever
// applies it: weights alone do not say how the network is wired (a dilated 3×3 convolution has
// the same weight shapes as a plain one).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "climate/correction.h"

namespace climate {

using Metadata = std::map<std::string, std::string>;

/// kind ("climate_correction"), width, depth, dilations ("1,2,4,2,1"; "" for 1 each), periods
/// ("5,16"), levels (0: the plain CNN) and halo of `options`.
Metadata correction_metadata(const CorrectionOptions& options);

/// The options a checkpoint's metadata describes, for `fields` fields. A missing or malformed
/// entry, or another kind, is an Error naming `source` (the file) and the entry; a checkpoint
/// written before the dilations were stored has no such entry and means 1 each, one written
/// before the U-Net has no levels and means the plain CNN.
CorrectionOptions correction_options(const Metadata& metadata, int fields,
                                     const std::string& source);

/// "1,2,4" → {1, 2, 4}, "" → {}: a list of whole numbers (an Error naming `what` otherwise).
std::vector<int> whole_numbers(const std::string& text, const std::string& what);

}  // namespace climate
