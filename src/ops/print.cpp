// Printing tensors: Tensor::str() (a readable rendering, summarised for large tensors) and
// operator<<. Declared with Tensor in core/tensor.h; defined here because it converts dtype and
// device through the ops and names the autograd node.
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "exadnn/autograd/node.h"
#include "internal.h"

namespace exadnn {

namespace {

constexpr int64_t kSummariseAbove = 1000;  // elements
constexpr int64_t kEdgeItems = 3;          // shown at each end of a summarised axis

struct Format {
  bool floating;
  bool boolean;
  bool scientific;
  int width;
};

std::string format_value(double v, const Format& f) {
  char buf[64];
  if (f.boolean) return v != 0.0 ? "true" : "false";
  if (!f.floating)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else if (std::isnan(v))
    std::snprintf(buf, sizeof buf, "nan");
  else if (std::isinf(v))
    std::snprintf(buf, sizeof buf, v > 0 ? "inf" : "-inf");
  else if (f.scientific)
    std::snprintf(buf, sizeof buf, "%.4e", v);
  else
    std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

void render(std::ostringstream& os, const double* data, const Shape& shape, const Strides& strides,
            int64_t dim, int64_t offset, bool summarise, const Format& f, int indent) {
  if (dim == shape.size()) {
    const std::string s = format_value(data[offset], f);
    os << std::string(static_cast<size_t>(std::max<int>(0, f.width - static_cast<int>(s.size()))),
                      ' ')
       << s;
    return;
  }
  os << '[';
  const int64_t n = shape[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (summarise && n > 2 * kEdgeItems && i == kEdgeItems) {
      os << "...";
      i = n - kEdgeItems - 1;
      os << (dim + 1 == shape.size() ? ", "
                                     : ",\n" + std::string(static_cast<size_t>(indent + 1), ' '));
      continue;
    }
    render(os, data, shape, strides, dim + 1, offset + i * strides[dim], summarise, f, indent + 1);
    if (i + 1 < n) {
      if (dim + 1 == shape.size()) {
        os << ", ";
      } else {
        os << ',' << std::string(static_cast<size_t>(shape.size() - dim - 1), '\n')
           << std::string(static_cast<size_t>(indent + 1), ' ');
      }
    }
  }
  os << ']';
}

}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  const Tensor host = detach().to(Device::cpu()).to(DType::f64).contiguous();
  const double* data = static_cast<const double*>(host.data_ptr());
  const int64_t n = host.numel();
  Format f{is_floating(dtype()), dtype() == DType::boolean, false, 0};
  double largest = 0.0, smallest = INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(data[i])) continue;
    largest = std::max(largest, std::fabs(data[i]));
    if (data[i] != 0.0) smallest = std::min(smallest, std::fabs(data[i]));
  }
  f.scientific = f.floating && (largest >= 1e5 || (smallest < 1e-4 && smallest != INFINITY));
  for (int64_t i = 0; i < n; ++i)
    f.width = std::max(f.width, static_cast<int>(format_value(data[i], f).size()));

  std::ostringstream os;
  os << "tensor(";
  if (n == 0) {
    os << "[]";
  } else {
    render(os, data, host.shape(), host.strides(), 0, 0, n > kSummariseAbove, f, 7);
  }
  os << ", shape=" << shape() << ", dtype=" << dtype_name(dtype());
  if (!device().is_cpu()) os << ", device=" << device().str();
  if (grad_fn()) {
    os << ", grad_fn=<" << grad_fn()->name() << '>';
  } else if (requires_grad()) {
    os << ", requires_grad=true";
  }
  os << ')';
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  return os << t.str();
}

}  // namespace exadnn
