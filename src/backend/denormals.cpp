// FTZ/DAZ on the calling thread and the OpenMP workers (backend/denormals.h).
#include "exadnn/backend/denormals.h"

#include <omp.h>

#if defined(__SSE2__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

namespace exadnn {
namespace {

void set_this_thread(bool on) {
#if defined(__SSE2__)
  _MM_SET_FLUSH_ZERO_MODE(on ? _MM_FLUSH_ZERO_ON : _MM_FLUSH_ZERO_OFF);
  _MM_SET_DENORMALS_ZERO_MODE(on ? _MM_DENORMALS_ZERO_ON : _MM_DENORMALS_ZERO_OFF);
#else
  (void)on;
#endif
}

}  // namespace

void set_flush_denormals(bool on) {
  set_this_thread(on);
  // Every worker of the team the next parallel region would use (libgomp keeps its threads).
#pragma omp parallel
  set_this_thread(on);
}

bool flush_denormals() {
#if defined(__SSE2__)
  return _MM_GET_FLUSH_ZERO_MODE() == _MM_FLUSH_ZERO_ON &&
         _MM_GET_DENORMALS_ZERO_MODE() == _MM_DENORMALS_ZERO_ON;
#else
  return false;
#endif
}

}  // namespace exadnn
