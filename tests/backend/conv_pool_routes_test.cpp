// The measured routes of the convolution + max pooling step's backward passes
// (onednn_conv_pool.cpp): a channels-last plan measures oneDNN against exadnn's channels-last
// im2col + GEMM (nhwc_im2col_conv.cpp) under the step's own wisdom key, and either route gives the
// gradients of the two ops run by exadnn's loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "route_tuning_fixture.h"
#include "testing.h"

using namespace exadnn;
using exadnn::cpu::ConvPass;
using exadnn::testing::ConvTuning;
using exadnn::testing::lines_of;
using exadnn::testing::sixteenths;

namespace {

// One step's problem: the convolution's geometry (for the wisdom keys) and the pooling's.
struct Problem {
  Conv2dGeometry conv;
  bool bias;
  Size2 kernel, stride, padding;  // the pooling's
};

Conv2dGeometry conv_geometry(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t k,
                             int64_t stride, int64_t pad, int64_t dilation) {
  Conv2dGeometry g;
  g.n = n, g.c = c, g.h = h, g.w = w, g.o = o, g.kh = g.kw = k;
  g.stride_h = g.stride_w = stride, g.pad_h = g.pad_w = pad;
  g.dilation_h = g.dilation_w = dilation;
  g.oh = (h + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
  g.ow = (w + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
  return g;
}

// Channels-last plans on every CPU (16 or more input channels).
const std::vector<Problem>& problems() {
  static const std::vector<Problem> v{
      // padding 1, 2x2 pooling (exadnn's channels-last pooling loop)
      {conv_geometry(2, 16, 10, 10, 32, 3, 1, 1, 1), true, 2, 2, 0},
      // stride 2, padding 2, dilation 2, three images (uneven chunks over two threads), no bias,
      // convolution output 6x5 (the last column unpooled)
      {conv_geometry(3, 16, 11, 9, 16, 3, 2, 2, 2), false, 2, 2, 0},
      // one image (a thread with no chunk), overlapping 3x3 pooling (oneDNN's pooling)
      {conv_geometry(1, 24, 8, 8, 16, 3, 1, 1, 1), true, 3, 2, 1},
      // 6.5 MB of patches per image: one image per chunk, a thread with two chunks
      {conv_geometry(3, 64, 32, 32, 16, 5, 1, 2, 1), true, 2, 2, 0},
  };
  return v;
}

Conv2dParams params_of(const Conv2dGeometry& g) {
  Conv2dParams p;
  p.stride = Size2(g.stride_h, g.stride_w);
  p.padding = Size2(g.pad_h, g.pad_w);
  p.dilation = Size2(g.dilation_h, g.dilation_w);
  return p;
}

// The output and every gradient of one step: the fused node, or (two_ops) max_pool2d(conv2d(...))
// by exadnn's loops.
std::vector<Tensor> step(const Problem& p, bool two_ops) {
  const Conv2dGeometry& g = p.conv;
  Tensor x = sixteenths({g.n, g.c, g.h, g.w}, 1);
  Tensor w = sixteenths({g.o, g.c, g.kh, g.kw}, 2);
  Tensor b = p.bias ? sixteenths({g.o}, 3) : Tensor();
  Tensor y;
  if (two_ops) {
    ConvAlgorithmGuard loops(ConvAlgorithm::im2col);
    y = max_pool2d(conv2d(x, w, b, params_of(g)), p.kernel, p.stride, p.padding);
    sum(y * y).backward();
  } else {
    y = conv2d_max_pool2d(x, w, b, params_of(g), p.kernel, p.stride, p.padding);
    sum(y * y).backward();
  }
  std::vector<Tensor> out{y.detach(), x.grad(), w.grad()};
  if (p.bias) out.push_back(b.grad());
  return out;
}

void expect_step_as_two_ops(const Problem& p, const std::string& what) {
  const std::vector<Tensor> fused = step(p, false), reference = step(p, true);
  const char* names[] = {"output", "x's gradient", "weight's gradient", "bias's gradient"};
  for (size_t i = 0; i < fused.size(); ++i)
    EXPECT_TRUE(exadnn::testing::all_close(fused[i], reference[i])) << what << ": " << names[i];
}

std::string key(const Problem& p, ConvPass pass) {
  return cpu::conv_wisdom_key(p.conv, p.bias, pass, "conv2d_max_pool2d");
}

constexpr ConvPass kBackwardPasses[] = {ConvPass::backward_weights, ConvPass::backward_data};

}  // namespace

// A new problem's two backward passes are measured and written under the step's key, each naming
// one of the step's routes; the results are the two ops'.
TEST_F(ConvTuning, ConvPoolBackwardPassesAreMeasuredUnderTheStepsKey) {
  for (const Problem& p : problems()) expect_step_as_two_ops(p, "measured");
  const auto lines = lines_of(wisdom());
  ASSERT_EQ(lines.size(), 2 * problems().size());
  for (const Problem& p : problems())
    for (ConvPass pass : kBackwardPasses) {
      int found = 0;
      for (const auto& line : lines)
        if (line.rfind(key(p, pass) + " ", 0) == 0) {
          ++found;
          const std::string route = line.substr(line.rfind(' ') + 1);
          EXPECT_TRUE(route == "onednn-nhwc" || route == "im2col") << line;
        }
      EXPECT_EQ(found, 1) << key(p, pass);
    }
}

// Each route, written down for every problem, is followed (nothing measured) and gives the two
// ops' output and gradients exactly (the data are multiples of 1/16: every sum is exact).
TEST_F(ConvTuning, EachConvPoolBackwardRouteGivesTheTwoOpsGradients) {
  for (const char* route : {"im2col", "onednn-nhwc"}) {
    {
      std::ofstream out(wisdom(), std::ios::trunc);
      for (const Problem& p : problems())
        for (ConvPass pass : kBackwardPasses) out << key(p, pass) << ' ' << route << '\n';
    }
    cpu::forget_tuned_routes();
    for (const Problem& p : problems())
      expect_step_as_two_ops(p, detail::cat(route, ", x [", p.conv.n, ", ", p.conv.c, ", ",
                                            p.conv.h, ", ", p.conv.w, "]"));
    EXPECT_EQ(lines_of(wisdom()).size(), 2 * problems().size()) << route;
  }
}

// A line naming a route the step does not take (a plain convolution's) is not followed: the pass
// is measured again and written below it, and that line, the last of its key, is followed by the
// next process.
TEST_F(ConvTuning, ARouteTheConvPoolStepDoesNotTakeIsMeasuredAgain) {
  const Problem& p = problems().front();
  {
    std::ofstream out(wisdom());
    for (ConvPass pass : kBackwardPasses) out << key(p, pass) << " dense\n";
  }
  expect_step_as_two_ops(p, "after a dense line");
  EXPECT_EQ(lines_of(wisdom()).size(), 4u);
  cpu::forget_tuned_routes();  // as a new process would start
  expect_step_as_two_ops(p, "the next process");
  EXPECT_EQ(lines_of(wisdom()).size(), 4u);
}

// A measurement runs each pass many times in one backward call; each run must reuse the memory
// the last one released, as the passes of successive training steps do. They used to keep every
// run's scratch until the call's end, so each oneDNN run took fresh memory, which measured ~25 %
// slower than in training (a CNN's conv2 on an AVX-512 EPYC), and the im2col route was chosen.
// So the call that measures peaks no higher than one that follows the route needing more memory.
TEST_F(ConvTuning, AMeasurementsRunsReuseTheMemoryOfTheLast) {
  const Problem& p = problems().back();
  auto& memory = MemoryManager::instance();
  // Host bytes the backward call adds at its peak above what was in use before it.
  const auto backward_peak = [&] {
    const Conv2dGeometry& g = p.conv;
    Tensor x = sixteenths({g.n, g.c, g.h, g.w}, 1);
    Tensor w = sixteenths({g.o, g.c, g.kh, g.kw}, 2);
    Tensor b = sixteenths({g.o}, 3);
    Tensor y = conv2d_max_pool2d(x, w, b, params_of(g), p.kernel, p.stride, p.padding);
    Tensor loss = sum(y * y);
    const size_t before = memory.stats(MemoryKind::host).bytes_in_use;
    memory.reset_peak(MemoryKind::host);
    loss.backward();
    return memory.stats(MemoryKind::host).peak_bytes - before;
  };
  const size_t measuring = backward_peak();
  ASSERT_EQ(lines_of(wisdom()).size(), 2u);
  size_t following = 0;
  for (const char* route : {"im2col", "onednn-nhwc"}) {
    {
      std::ofstream out(wisdom(), std::ios::trunc);
      for (ConvPass pass : kBackwardPasses) out << key(p, pass) << ' ' << route << '\n';
    }
    cpu::forget_tuned_routes();
    following = std::max(following, backward_peak());
  }
  EXPECT_LE(measuring, following);
}
