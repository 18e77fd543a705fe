// ProcessGrid (dist/process_grid.h): one split per axis, keyed so each group keeps rank order.
#include "exadnn/dist/process_grid.h"

namespace exadnn::dist {
namespace {

// The split's colour: the rank's coordinates on the other two axes, as one number.
Communicator split_axis(const Communicator& world, int colour) {
  return world.split(colour, world.rank());
}

}  // namespace

ProcessGrid::ProcessGrid(const Communicator& world, GridShape shape)
    : shape_(shape),
      data_(world),  // replaced below, once the shape is checked
      pipeline_(world),
      tensor_(world) {
  EXADNN_CHECK(shape.data >= 1 && shape.pipeline >= 1 && shape.tensor >= 1, "dist::ProcessGrid",
               "every axis needs at least one rank, got data ", shape.data, " × pipeline ",
               shape.pipeline, " × tensor ", shape.tensor);
  EXADNN_CHECK(shape.data * shape.pipeline * shape.tensor == world.size(), "dist::ProcessGrid",
               "data ", shape.data, " × pipeline ", shape.pipeline, " × tensor ", shape.tensor,
               " = ", shape.data * shape.pipeline * shape.tensor, " ranks, but the job has ",
               world.size());
  const int r = world.rank();
  const int t = r % shape.tensor, p = (r / shape.tensor) % shape.pipeline,
            d = r / (shape.tensor * shape.pipeline);
  tensor_ = split_axis(world, d * shape.pipeline + p);
  pipeline_ = split_axis(world, d * shape.tensor + t);
  data_ = split_axis(world, p * shape.tensor + t);
}

}  // namespace exadnn::dist
