#include "onednn_context.h"

#include <cstring>

namespace exadnn::cpu::onednn {

const dnnl::engine& engine() {
  static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

bool has_bf16_kernels() {
  static const bool has = [] {
    using dt = memory::data_type;
    try {
      const memory::desc a({2, 2}, dt::bf16, tag::ab), c({2, 2}, dt::f32, tag::ab);
      dnnl::matmul::primitive_desc mm(dnnl::matmul::desc(a, a, c), engine());
      const memory::desc x({1, 16, 4, 4}, dt::bf16, tag::any),
          w({16, 16, 3, 3}, dt::bf16, tag::any), y({1, 16, 2, 2}, dt::bf16, tag::any);
      dnnl::convolution_forward::primitive_desc conv(
          dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                          dnnl::algorithm::convolution_direct, x, w, y, {1, 1},
                                          {0, 0}, {0, 0}),
          engine());
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return has;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

const dnnl::primitive_attr& attributes() {
  static const dnnl::primitive_attr attr = [] {
    dnnl::primitive_attr a;
    a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return a;
  }();
  return attr;
}

memory::data_type data_type_of(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return memory::data_type::f32;
    case DType::bf16:
      return memory::data_type::bf16;
    default:
      throw Error("oneDNN", detail::cat("exadnn runs no ", dtype_name(dtype), " through oneDNN"));
  }
}

memory::desc make_desc(const memory::dims& dims, memory::data_type dt, tag layout) {
  return memory::desc(dims, dt, layout);
}

memory::desc f32_desc(const memory::dims& dims, tag layout) {
  return make_desc(dims, memory::data_type::f32, layout);
}

memory wrap(const memory::desc& md, const Tensor& t) {
  return memory(md, engine(), t.data_ptr());
}

namespace {
constexpr unsigned char kGuardByte = 0xA5;
}

memory Scratch::make(const memory::desc& md) {
  const size_t bytes = std::max<size_t>(md.get_size(), 64);
  auto storage = Storage::allocate(bytes + kGuardBytes, Device::cpu(), MemoryKind::host);
  std::memset(static_cast<unsigned char*>(storage->data()) + bytes, kGuardByte, kGuardBytes);
  blocks_.push_back({storage, bytes});
  return memory(md, engine(), storage->data());
}

void Scratch::check_guards(const char* op) const {
  for (const Block& b : blocks_) {
    const auto* guard = static_cast<const unsigned char*>(b.storage->data()) + b.bytes;
    size_t last = 0;  // 1 + the furthest guard byte changed
    for (size_t i = 0; i < kGuardBytes; ++i)
      if (guard[i] != kGuardByte) last = i + 1;
    if (last > 0)
      throw Error(op, detail::cat("oneDNN wrote at least ", last, " bytes past the end of its ",
                                  b.bytes, "-byte buffer (a oneDNN bug; the heap may be corrupt)"));
  }
}

void Scratch::add_scratchpad(const memory::desc& md, std::unordered_map<int, memory>& args) {
  if (md.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, make(md));
}

Layout::Layout(const memory::desc& user_md, const memory::desc& inner_md, bool into, bool out_of)
    : user(user_md), inner(inner_md) {
  if (same()) return;
  // The reorder primitives only need descriptors; memory is bound at execution.
  if (into) {
    const dnnl::reorder::primitive_desc pd(engine(), user, engine(), inner, attributes());
    to_inner = dnnl::reorder(pd);
    to_inner_scratchpad = pd.scratchpad_desc();
  }
  if (out_of) {
    const dnnl::reorder::primitive_desc pd(engine(), inner, engine(), user, attributes());
    to_user = dnnl::reorder(pd);
    to_user_scratchpad = pd.scratchpad_desc();
  }
}

memory Layout::input(const Tensor& t, Scratch& scratch) const {
  memory m = wrap(user, t);
  if (same()) return m;
  memory in = scratch.make(inner);
  std::unordered_map<int, memory> args{{DNNL_ARG_FROM, m}, {DNNL_ARG_TO, in}};
  scratch.add_scratchpad(to_inner_scratchpad, args);
  to_inner.execute(stream(), args);
  return in;
}

memory Layout::output(const Tensor& t, Scratch& scratch) const {
  return same() ? wrap(user, t) : scratch.make(inner);
}

void Layout::finish(const memory& inner_mem, const Tensor& t, Scratch& scratch) const {
  if (same()) return;
  std::unordered_map<int, memory> args{{DNNL_ARG_FROM, inner_mem}, {DNNL_ARG_TO, wrap(user, t)}};
  scratch.add_scratchpad(to_user_scratchpad, args);
  to_user.execute(stream(), args);
}

}  // namespace exadnn::cpu::onednn
