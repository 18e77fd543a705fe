// Measured convolution routes (src/backend/cpu/conv_tuning.h): each pass of a new problem is
// measured once and written to the wisdom file; an entry there is followed without measuring.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "backend/cpu/nn_impl.h"
#include "route_tuning_fixture.h"
#include "testing.h"

using namespace exadnn;
using exadnn::cpu::ConvPass;
using exadnn::testing::busy_machine;
using exadnn::testing::ConvTuning;
using exadnn::testing::lines_of;
using exadnn::testing::quiet_machine;
using exadnn::testing::sixteenths;

namespace {

// x [2, 3, 9, 9], weight [4, 3, 3, 3], bias, padding 1: out [2, 4, 9, 9].
Conv2dGeometry geometry() {
  Conv2dGeometry g;
  g.n = 2, g.c = 3, g.h = 9, g.w = 9, g.o = 4, g.kh = 3, g.kw = 3, g.oh = 9, g.ow = 9;
  g.pad_h = g.pad_w = 1;
  return g;
}

// Output and the three gradients of one conv2d step.
std::vector<Tensor> conv_step() {
  Tensor x = sixteenths({2, 3, 9, 9}, 1);
  Tensor w = sixteenths({4, 3, 3, 3}, 2);
  Tensor b = sixteenths({4}, 3);
  Conv2dParams p;
  p.padding = 1;
  Tensor out = conv2d(x, w, b, p);
  sum(out * out).backward();
  return {out.detach(), x.grad(), w.grad(), b.grad()};
}

// One conv2d step by the measured routes gives what exadnn's im2col route gives.
void expect_conv_step_as_im2col() {
  const std::vector<Tensor> tuned = conv_step();
  std::vector<Tensor> reference;
  {
    ConvAlgorithmGuard im2col(ConvAlgorithm::im2col);
    reference = conv_step();
  }
  for (size_t i = 0; i < tuned.size(); ++i)
    EXPECT_TRUE(exadnn::testing::all_close(tuned[i], reference[i])) << i;
}

}  // namespace

TEST_F(ConvTuning, EachPassIsMeasuredOnceAndWrittenDown) {
  expect_conv_step_as_im2col();
  const auto lines = lines_of(wisdom());
  ASSERT_EQ(lines.size(), 3u);
  for (ConvPass pass : {ConvPass::forward, ConvPass::backward_data, ConvPass::backward_weights}) {
    const std::string key = cpu::conv_wisdom_key(geometry(), pass != ConvPass::backward_data, pass);
    int found = 0;
    for (const auto& line : lines) found += line.rfind(key + " ", 0) == 0;
    EXPECT_EQ(found, 1) << key;
  }
  conv_step();  // known now: nothing is measured or written again
  EXPECT_EQ(lines_of(wisdom()).size(), 3u);
}

// On a busy machine the timings measure the load. The choice serves this process (correct
// results, measured once) but is not written down; a later process on a quiet machine measures
// again and writes.
TEST_F(ConvTuning, AMeasurementOnABusyMachineIsKeptButNotWrittenDown) {
  EXPECT_EQ(measured_routes_not_remembered(), 0);
  cpu::set_others_cpu_clock(&busy_machine);
  expect_conv_step_as_im2col();
  EXPECT_EQ(lines_of(wisdom()).size(), 0u);
  EXPECT_EQ(measured_routes_not_remembered(), 3);  // forward, backward data, backward weights
  conv_step();  // known in the process: not measured again, still not written
  EXPECT_EQ(lines_of(wisdom()).size(), 0u);
  EXPECT_EQ(measured_routes_not_remembered(), 3);
  cpu::forget_tuned_routes();  // as a new process would start
  cpu::set_others_cpu_clock(&quiet_machine);
  conv_step();
  EXPECT_EQ(lines_of(wisdom()).size(), 3u);
  EXPECT_EQ(measured_routes_not_remembered(), 0);
}

TEST_F(ConvTuning, AWrittenRouteIsFollowedAndBadLinesAreIgnored) {
  {
    std::ofstream out(wisdom());
    out << "a line that is not a route\n"
        << cpu::conv_wisdom_key(geometry(), true, ConvPass::forward) << " no-such-route\n";
    for (ConvPass pass : {ConvPass::forward, ConvPass::backward_data, ConvPass::backward_weights})
      out << cpu::conv_wisdom_key(geometry(), pass != ConvPass::backward_data, pass) << " im2col\n";
  }
  const std::vector<Tensor> tuned = conv_step();
  std::vector<Tensor> im2col;
  {
    ConvAlgorithmGuard guard(ConvAlgorithm::im2col);
    im2col = conv_step();
  }
  // Exact data: every route gives these bits; the line count shows nothing was measured.
  for (size_t i = 0; i < tuned.size(); ++i)
    EXPECT_EQ(exadnn::testing::values(tuned[i]), exadnn::testing::values(im2col[i])) << i;
  EXPECT_EQ(lines_of(wisdom()).size(), 5u);  // nothing measured, nothing added
}

// EXADNN_CONV_WINOGRAD=0 (run by ctest as backend.conv_winograd_off; skipped otherwise): a
// wisdom line naming Winograd, written by an earlier process with the route on, is not followed
// (it used to be, and the run stopped: "the Winograd route takes ..."); the problem is measured
// among the remaining routes and written under its own key.
TEST_F(ConvTuning, WithWinogradOffAWinogradLineIsNotFollowed) {
  const char* env = std::getenv("EXADNN_CONV_WINOGRAD");
  if (env == nullptr || std::string(env) != "0") GTEST_SKIP() << "needs EXADNN_CONV_WINOGRAD=0";
  Conv2dGeometry g;  // x [2, 64, 6, 6], weight [64, 64, 3, 3], padding 1, no bias
  g.n = 2, g.c = 64, g.h = 6, g.w = 6, g.o = 64, g.kh = 3, g.kw = 3, g.oh = 6, g.ow = 6;
  g.pad_h = g.pad_w = 1;
  {
    std::ofstream out(wisdom());
    for (ConvPass pass : {ConvPass::forward, ConvPass::backward_data, ConvPass::backward_weights}) {
      std::string key = cpu::conv_wisdom_key(g, false, pass);
      key.replace(key.find("routes6-nowinograd"), 18, "routes6");  // as written with it on
      out << key << " onednn-winograd\n";
    }
  }
  Tensor x = sixteenths({2, 64, 6, 6}, 1), w = sixteenths({64, 64, 3, 3}, 2);
  Conv2dParams p;
  p.padding = 1;
  ASSERT_NO_THROW(sum(conv2d(x, w, Tensor(), p)).backward());
  EXPECT_EQ(lines_of(wisdom()).size(), 6u);  // the three lines, and three measured now
}

TEST(ConvWisdomPath, NoneKeepsRoutesInTheProcessOnly) {
  ::setenv("EXADNN_CONV_WISDOM", "none", 1);
  EXPECT_EQ(cpu::route_wisdom_path(), "");
  ::setenv("EXADNN_CONV_WISDOM", "/some/file", 1);
  EXPECT_EQ(cpu::route_wisdom_path(), "/some/file");
  ::unsetenv("EXADNN_CONV_WISDOM");
}

// oneDNN 2.6's channels-last backward-weights kernel for a strided 1x1 convolution with fewer
// than 16 input channels (jit_1x1:avx512_core) writes up to ~2 KB past its scratchpad when the
// batch is odd and two threads share it: the downsampling shortcut of a narrow ResNet, which the
// route measurement tries in every layout. Every layout must give the exact gradient and leave
// the heap alone (the scratch guards would throw).
TEST(OnednnConvLayouts, StridedOneByOneBackwardWeightsIsExactInEveryLayout) {
  const int threads = get_num_threads();
  set_num_threads(2);
  for (int64_t n : {1, 5, 23, 32})
    for (int64_t c : {3, 8, 16}) {
      Conv2dGeometry g;
      g.n = n, g.c = c, g.h = g.w = 32, g.o = 16, g.kh = g.kw = 1, g.oh = g.ow = 16;
      g.stride_h = g.stride_w = 2;
      const Tensor x = sixteenths({n, c, 32, 32}, 1).detach();
      const Tensor grad_out = sixteenths({n, 16, 16, 16}, 2).detach();
      const Tensor expected = zeros({16, c, 1, 1}, TensorOptions(DType::f32));
      cpu::native::conv2d_backward_weights<float>(g, expected, Tensor(), grad_out, x);
      for (auto layout : {cpu::onednn::ConvLayout::plain, cpu::onednn::ConvLayout::blocked,
                          cpu::onednn::ConvLayout::nhwc}) {
        const Tensor got = zeros({16, c, 1, 1}, TensorOptions(DType::f32));
        ASSERT_NO_THROW(cpu::onednn::conv2d_backward_weights(g, got, Tensor(), grad_out, x, layout))
            << "n " << n << " c " << c << " layout " << static_cast<int>(layout);
        EXPECT_EQ(exadnn::testing::values(got), exadnn::testing::values(expected))
            << "n " << n << " c " << c << " layout " << static_cast<int>(layout);
      }
    }
  set_num_threads(threads);
}

// The Winograd route (oneDNN's F(4x4, 3x3) kernels) against exadnn's loops on a ResNet-like
// 3x3 layer of 64 channels: all three passes within 1e-4 of the output's scale (Winograd's
// transforms round differently; measured ~1e-6), and a problem it does not take (a stride, or
// fewer than 64 channels) refused with an Error, which leaves the route out of the measurement.
TEST(OnednnConvLayouts, WinogradRouteMatchesTheLoopsAndRefusesWhatItDoesNotTake) {
  Conv2dGeometry g;
  g.n = 2, g.c = 64, g.h = g.w = 12, g.o = 64, g.kh = g.kw = 3, g.oh = g.ow = 12;
  g.pad_h = g.pad_w = 1;
  Generator gen(4);
  const Tensor x = randn({2, 64, 12, 12}, {}, &gen), w = randn({64, 64, 3, 3}, {}, &gen);
  const Tensor grad_out = randn({2, 64, 12, 12}, {}, &gen);
  const auto close = [](const Tensor& got, const Tensor& want, const char* what) {
    const std::vector<double> a = exadnn::testing::values(got), b = exadnn::testing::values(want);
    double scale = 0, diff = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      scale = std::max(scale, std::abs(b[i]));
      diff = std::max(diff, std::abs(a[i] - b[i]));
    }
    EXPECT_LT(diff, 1e-4 * scale) << what << ": max difference " << diff << " of " << scale;
  };
  const auto winograd = cpu::onednn::ConvLayout::winograd;
  Tensor out = zeros({2, 64, 12, 12}), want = zeros({2, 64, 12, 12});
  try {
    cpu::onednn::conv2d_forward(g, out, x, w, Tensor(), winograd);
  } catch (const Error& e) {
    // oneDNN 2.6 has Winograd kernels only with AVX-512: elsewhere the route is refused (the
    // measurement leaves it out), which is all there is to check.
    ASSERT_NE(std::string(e.what()).find("could not create a primitive"), std::string::npos)
        << e.what();
    GTEST_SKIP() << "this CPU has no oneDNN Winograd kernels: " << e.what();
  }
  cpu::native::conv2d_forward<float>(g, want, x, w, Tensor());
  close(out, want, "forward");
  Tensor gx = zeros({2, 64, 12, 12}), want_gx = zeros({2, 64, 12, 12});
  cpu::onednn::conv2d_backward_data(g, gx, grad_out, w, winograd);
  cpu::native::conv2d_backward_data<float>(g, want_gx, grad_out, w);
  close(gx, want_gx, "backward data");
  Tensor gw = zeros({64, 64, 3, 3}), want_gw = zeros({64, 64, 3, 3});
  cpu::onednn::conv2d_backward_weights(g, gw, Tensor(), grad_out, x, winograd);
  cpu::native::conv2d_backward_weights<float>(g, want_gw, Tensor(), grad_out, x);
  close(gw, want_gw, "backward weights");

  Conv2dGeometry narrow = g;
  narrow.c = narrow.o = 16;
  const Tensor x16 = randn({2, 16, 12, 12}, {}, &gen), w16 = randn({16, 16, 3, 3}, {}, &gen);
  Tensor out16 = zeros({2, 16, 12, 12});
  EXPECT_THROW(cpu::onednn::conv2d_forward(narrow, out16, x16, w16, Tensor(), winograd), Error);
  Conv2dGeometry strided = g;
  strided.stride_h = strided.stride_w = 2, strided.oh = strided.ow = 6;
  Tensor out6 = zeros({2, 64, 6, 6});
  EXPECT_THROW(cpu::onednn::conv2d_forward(strided, out6, x, w, Tensor(), winograd), Error);
}
