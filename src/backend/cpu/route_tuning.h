// Which of several implementations ("routes") runs one problem, chosen by measuring (internal to
// the CPU backend): on the first call of a problem every route runs on the call's own tensors,
// the fastest is kept for the process and written to a wisdom file, so later processes on the
// same machine take the same route (identical results across a resume: routes round
// differently) without measuring again. A measurement during which other processes used the
// cores is kept for the process only: a busy moment's choice is never written down for good.
// Users: the f32 convolution passes (conv_tuning.h) and the f32 GEMMs that oneDNN runs two ways
// (gemm_routes.h).
//
// The wisdom file: $EXADNN_CONV_WISDOM (named for its first users, the convolutions), else
// $XDG_CACHE_HOME/exadnn/conv_wisdom, else ~/.cache/exadnn/conv_wisdom; one line per problem,
// "<key> <route>". EXADNN_CONV_WISDOM=none keeps choices in the process only. The file is locked
// (flock) while a problem is measured, so concurrent processes do not time each other and agree
// on one entry. Keys name the machine (machine_tag()): lines from another CPU model or oneDNN
// version are never followed.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace exadnn::cpu {

/// The CPU's model, family, model number and vector width, and oneDNN's version: the part of a
/// key that keeps measurements from another machine or library version from applying here.
const std::string& machine_tag();

/// The index in `routes` (their names, as written to the wisdom file) of the route for the
/// problem `key`: known in this process, read from the wisdom file, or measured now by
/// `run(i)`, which computes the problem by routes[i] into the call's outputs (or throws an Error
/// for a problem that route does not take; the caller runs the returned route once more for its
/// result). A remembered route outside `routes` is not followed: the problem is measured again.
/// A problem met while this thread measures another (a GEMM inside a convolution route), or
/// inside an OpenMP parallel region, takes routes[0] unmeasured: the measuring thread holds the
/// wisdom file's lock, and a team's members must not wait on each other.
size_t tuned_route(const std::string& key, std::span<const std::string_view> routes,
                   const std::function<void(size_t)>& run);

/// Where routes are persisted ("" when only in the process).
std::string route_wisdom_path();

/// CPU seconds the machine's other processes have used so far; a measurement during which they
/// used more than a quarter of a core is not written down (see measure() in route_tuning.cpp).
/// Default: /proc/stat's busy time less this process's CPU time.
using OthersCpuClock = double (*)();
/// Replaces the clock (tests: a busy or a quiet machine on demand); nullptr restores the default.
void set_others_cpu_clock(OthersCpuClock clock);
/// Forgets the routes this process knows (tests; the wisdom file is kept).
void forget_tuned_routes();

}  // namespace exadnn::cpu
