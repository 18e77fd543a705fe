// exadnn dtypes and reductions as MPI datatypes and ops (fp16/bf16 through user-defined ops).
#pragma once

#include <mpi.h>

#include "exadnn/core/dtype.h"
#include "exadnn/dist/communicator.h"

namespace exadnn::dist::detail {

/// The MPI datatype that moves elements of `dtype` (fp16/bf16 travel as MPI_UINT16_T).
MPI_Datatype mpi_datatype(DType dtype);

/// The MPI op that applies `op` to elements of `dtype`; fp16/bf16 get exadnn's own ops, created
/// on first use and freed when MPI finalises. Booleans support max and min only.
MPI_Op mpi_op(ReduceOp op, DType dtype);

}  // namespace exadnn::dist::detail
