// The sanitizer settings of the harnesses whose reader goes through libhdf5 (hdf5, cbed_shard);
// included by one source file of each harness program.
#pragma once

// libhdf5 (not instrumented) allocates what a corrupt file's metadata says and reports a failed
// malloc as an error of its own: under ASan such a request must return null, as it does in a
// normal build, instead of aborting. On some corrupt files libhdf5 loses blocks of its own free
// lists on its error paths: leaks inside libhdf5, not exadnn's (exadnn's HDF5 objects are ids,
// which stay reachable in libhdf5's tables when not closed, so an unclosed one is no leak here).
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libhdf5_serial.so\n";
}
