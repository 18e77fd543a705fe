// What the Executive offers the module instances of one rank: the control file, the COMMLIB
// communicators, the tuple-space client and the channels of the task now running (internal).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "exadnn/dist/communicator.h"
#include "exadnn/flow/channel.h"
#include "exadnn/flow/control_file.h"
#include "exadnn/flow/tuple_space.h"

namespace exadnn::flow::detail {

/// Per-rank services behind ModuleContext::channel() and ::tuple_space().
struct RankServices {
  const ControlFile* file = nullptr;               ///< the control file being run
  std::optional<dist::Communicator> channel_comm;  ///< COMMLIB channels (a world duplicate)
  std::optional<TupleSpace> tuple_space;           ///< client, when the file asks for a tuple space
  /// The channels touching the running task, by name, with their ends placed for this task.
  std::map<std::string, ChannelEnds> channel_ends;
  /// Channels opened by the running task (made on first use, dropped when the task ends).
  std::map<std::string, std::unique_ptr<Channel>> channels;
};

}  // namespace exadnn::flow::detail
