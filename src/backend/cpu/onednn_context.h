// The one place exadnn's layer kernels meet oneDNN (internal to the CPU backend): the engine,
// a stream per thread, memory over exadnn tensors, reorders between the plain NCHW layout of
// exadnn tensors and the layouts primitives ask for, and a cache of primitives by problem.
// (GEMM calls oneDNN's C API separately, in gemm_kernels.cpp.)
#pragma once

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "exadnn/core/error.h"
#include "exadnn/core/storage.h"
#include "exadnn/core/tensor.h"
#include "omp_team.h"

namespace exadnn::cpu::onednn {

using dnnl::memory;
using tag = dnnl::memory::format_tag;

/// The CPU engine (created once).
const dnnl::engine& engine();
/// Whether oneDNN has bf16 matmul and convolution kernels on this CPU (oneDNN 2.6: only with
/// AVX-512; on an AVX2 machine creating a bf16 primitive fails). Probed once, by creating both on
/// a tiny problem; where false, the 16-bit kernels widen to f32 instead (widen_f32.h).
bool has_bf16_kernels();
/// An in-order stream on the CPU engine, one per calling thread.
dnnl::stream& stream();

/// Attributes of every primitive exadnn creates: scratchpad memory comes from the caller (user
/// mode), from exadnn's MemoryManager, for each execution. oneDNN's own (library) scratchpad is
/// per creating thread and breaks when another thread executes the primitive.
const dnnl::primitive_attr& attributes();

/// oneDNN's data type of an exadnn dtype (f32 or bf16: what exadnn runs through oneDNN).
memory::data_type data_type_of(DType dtype);
/// Memory descriptor of `dims` of data type `dt` in a fixed layout, or tag::any.
memory::desc make_desc(const memory::dims& dims, memory::data_type dt, tag layout);
/// f32 memory descriptor of `dims` in a fixed layout, or tag::any.
memory::desc f32_desc(const memory::dims& dims, tag layout);
/// oneDNN memory over a tensor's data (no copy); the tensor must match md's size.
memory wrap(const memory::desc& md, const Tensor& t);

/// Memory oneDNN works in that exadnn owns (from the MemoryManager's cache) for one call.
class Scratch {
 public:
  /// Memory of md's layout and size.
  memory make(const memory::desc& md);
  /// Adds DNNL_ARG_SCRATCHPAD memory of `md` to args when the primitive needs any.
  void add_scratchpad(const memory::desc& md, std::unordered_map<int, memory>& args);
  /// Throws an Error naming `op` if a primitive wrote past the end of one of these buffers (into
  /// the guard bytes after each). Call after the stream has finished. A JIT kernel's write is
  /// invisible to AddressSanitizer; this turns such a library bug (one is dodged in
  /// onednn_conv.cpp) into an error instead of a corrupt heap.
  void check_guards(const char* op) const;

  /// Bytes after each buffer that must stay untouched.
  static constexpr size_t kGuardBytes = 4096;

 private:
  struct Block {
    std::shared_ptr<Storage> storage;
    size_t bytes;  // what the primitive may use; the guard follows
  };
  std::vector<Block> blocks_;
};

/// How one tensor argument of a primitive travels between exadnn's plain layout (`user`) and the
/// layout the primitive chose (`inner`); the reorders exist only when the two differ.
struct Layout {
  memory::desc user, inner;
  dnnl::reorder to_inner, to_user;
  memory::desc to_inner_scratchpad, to_user_scratchpad;

  Layout() = default;
  /// `into`: the primitive reads this argument (reorder user -> inner);
  /// `out_of`: the primitive writes it (reorder inner -> user).
  Layout(const memory::desc& user_md, const memory::desc& inner_md, bool into, bool out_of);
  bool same() const { return user == inner; }

  /// The primitive's view of input t: t itself, or a reordered copy in scratch.
  memory input(const Tensor& t, Scratch& scratch) const;
  /// Where the primitive writes output t: t itself, or scratch to pass to finish() after.
  memory output(const Tensor& t, Scratch& scratch) const;
  /// Copies an output computed in `inner` memory into t (no-op when the layouts agree).
  void finish(const memory& inner_mem, const Tensor& t, Scratch& scratch) const;
};

/// Hash of a list of integers (for cache keys).
inline size_t hash_ints(std::initializer_list<int64_t> values) {
  size_t h = 0xcbf29ce484222325ull;
  for (int64_t v : values) h = (h ^ static_cast<size_t>(v)) * 0x100000001b3ull;
  return h;
}

/// Primitives by problem: created once per key, then shared (immutable) by every caller. The
/// thread count is part of the key: oneDNN fixes a primitive's work split when it is created.
template <class Key, class Value, class Hash>
class PrimitiveCache {
 public:
  template <class Make>
  std::shared_ptr<const Value> get(const Key& key, Make&& make) {
    const Threaded k{key, omp_get_max_threads()};
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(k);
    if (it != map_.end()) return it->second;
    auto value = std::make_shared<const Value>(make());
    map_.emplace(k, value);
    return value;
  }

 private:
  struct Threaded {
    Key key;
    int threads;
    bool operator==(const Threaded&) const = default;
  };
  struct ThreadedHash {
    size_t operator()(const Threaded& k) const {
      return Hash()(k.key) * 31 + static_cast<size_t>(k.threads);
    }
  };
  std::mutex mutex_;
  std::unordered_map<Threaded, std::shared_ptr<const Value>, ThreadedHash> map_;
};

/// Runs f with oneDNN's work split matched to the OpenMP team it will get (omp_team.h), turning
/// oneDNN's exceptions into exadnn::Error naming `op`.
template <class F>
decltype(auto) guarded(const char* op, F&& f) {
  const ExactTeamScope team;
  try {
    return f();
  } catch (const dnnl::error& e) {
    throw Error(op,
                detail::cat("oneDNN failed (status ", static_cast<int>(e.status), "): ", e.what()));
  }
}

}  // namespace exadnn::cpu::onednn
