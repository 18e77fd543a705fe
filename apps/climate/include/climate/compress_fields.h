// The scalar fields compressed from a shallow-water state, as FaceFields (compressor.h's per-face
// layout: face f's element (ei, ej) node (i, j) at row ej (p+1) + j, column ei (p+1) + i).
#pragma once

#include "climate/compressor.h"
#include "climate/shallow_water.h"

namespace climate {

/// Variable `var` (0 h [m], 1–3 h u_x, h u_y, h u_z [m²/s]) of state U as a FaceField of face
/// size Ne (p+1). A var outside 0–3 or a U of the wrong size is an exadnn::Error.
FaceField gather_face_field(const ShallowWater& solver, const SwState& U, int var);
/// Writes `field` into variable `var` of U (the inverse of gather_face_field).
void scatter_face_field(const ShallowWater& solver, const FaceField& field, int var, SwState& U);

/// The zonal (east) and meridional (north) velocity u, v [m/s] of state U at every node: (h u) / h
/// projected on the node's east and north unit vectors.
void velocity_face_fields(const ShallowWater& solver, const SwState& U, FaceField& u, FaceField& v);
/// The inverse: sets U's momentum to h (u e_east + v e_north) at every node, with U's own h.
/// Fields of the wrong face size are an exadnn::Error.
void set_velocity_face_fields(const ShallowWater& solver, const FaceField& u, const FaceField& v,
                              SwState& U);

}  // namespace climate
