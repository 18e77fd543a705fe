// The workflow modules of in-situ learning (workflows/in_situ_learning.yaml):
//   diffusion_sim     the heat equation of diffusion/heat2d.h on an n x n grid; streams a snapshot
//                     of the field over a channel every `every` steps
//   surrogate_train   learns, as snapshots arrive, a 3x3 convolution that maps one snapshot to the
//                     next; with every = 1 the exact answer is the scheme's own stencil
//                     [[0, r, 0], [r, 1 - 4r, r], [0, r, 0]] (r = a dt / dx^2), which it reports
// Stream protocol on the channel: first a 1-element i64 tensor with the snapshot count, then the
// snapshots, each an f32 tensor [n, n].
#include <exadnn/exadnn.h>
#include <exadnn/flow/channel.h>
#include <exadnn/flow/module.h>
#include <exadnn/nn/conv.h>
#include <exadnn/nn/loss.h>
#include <exadnn/optim/adam.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "diffusion/heat2d.h"

namespace exadnn::apps::diffusion {

namespace {

// args: n (grid size, 64), snapshots (100), every (steps between snapshots, 1), r (a dt/dx^2,
// 0.2; stable below 0.25), forcing (amplitude of a random source added at every point and step,
// 1.0: it keeps short wavelengths alive, so the stencil can be identified), channel, seed.
void diffusion_sim(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  const int snapshots = ctx.arg<int>("snapshots", 100), every = ctx.arg<int>("every", 1);
  EXADNN_CHECK(snapshots >= 1 && every >= 1, "diffusion_sim", ctx.describe(),
               ": need snapshots >= 1 and every >= 1");
  Heat2dOptions options;
  options.n = ctx.arg<int>("n", 64);
  options.r = ctx.arg<double>("r", 0.2);
  options.forcing = ctx.arg<double>("forcing", 1.0);
  options.seed = static_cast<uint64_t>(ctx.arg<int64_t>("seed", 1));
  Heat2d heat(options);
  heat.random_start(static_cast<uint64_t>(ctx.iteration()));
  flow::Channel& out = ctx.channel(ctx.arg<std::string>("channel", "snapshots"));
  const int n = heat.n();
  out.send(from_vector<int64_t>({snapshots + 1})).wait();  // the initial field, then `snapshots`
  std::vector<dist::Work> pending;
  auto send_field = [&] { pending.push_back(out.send(from_vector<float>(heat.field(), {n, n}))); };
  send_field();
  for (int s = 0; s < snapshots; ++s) {
    for (int step = 0; step < every; ++step) heat.step();
    send_field();
  }
  for (auto& w : pending) w.wait();
}

// args: steps (optimizer steps per arriving snapshot, 20), lr (0.01), channel (snapshots),
// out (JSON file of the learned stencil and loss, "" = none), r (to report the exact stencil).
void surrogate_train(flow::ModuleContext& ctx) {
  if (ctx.comm().rank() != 0) return;
  flow::Channel& in = ctx.channel(ctx.arg<std::string>("channel", "snapshots"));
  const int steps = ctx.arg<int>("steps", 20);
  const int64_t count = in.recv().item<int64_t>();
  nn::Conv2d model(nn::Conv2dOptions(1, 1, 3).padding(1).bias(false));
  optim::Adam opt(model.parameters(), optim::AdamOptions(ctx.arg<double>("lr", 0.01)));
  Tensor previous = in.recv();
  const int64_t n = previous.size(0);
  double first_loss = -1, last_loss = 0;
  for (int64_t s = 1; s < count; ++s) {
    Tensor current = in.recv();  // blocks until the simulation sends it
    const Tensor x = previous.reshape({1, 1, n, n}), y = current.reshape({1, 1, n, n});
    for (int k = 0; k < steps; ++k) {
      opt.zero_grad();
      Tensor loss = nn::mse_loss(model.forward(x), y);
      loss.backward();
      opt.step();
      last_loss = loss.item<double>();
      if (first_loss < 0) first_loss = last_loss;
    }
    previous = current;
  }
  const std::vector<float> w = to_vector<float>(model.weight.contiguous());
  std::printf("surrogate: %lld snapshots of %lldx%lld, loss %.3g -> %.3g; learned stencil:\n",
              static_cast<long long>(count), static_cast<long long>(n), static_cast<long long>(n),
              first_loss, last_loss);
  for (int i = 0; i < 3; ++i)
    std::printf("  %8.4f %8.4f %8.4f\n", w[i * 3], w[i * 3 + 1], w[i * 3 + 2]);
  const double r = ctx.arg<double>("r", 0.2);
  const std::vector<double> exact{0, r, 0, r, 1 - 4 * r, r, 0, r, 0};
  double error = 0;
  for (int i = 0; i < 9; ++i) error = std::max(error, std::abs(w[i] - exact[i]));
  std::printf("  largest difference from the scheme's stencil (r = %g): %.4f\n", r, error);
  if (const std::string out = ctx.arg<std::string>("out", ""); !out.empty()) {
    std::ofstream file(out);
    EXADNN_CHECK(file.good(), "surrogate_train", "cannot write '", out, "'");
    file << nlohmann::json{{"snapshots", count},
                           {"first_loss", first_loss},
                           {"last_loss", last_loss},
                           {"stencil", w},
                           {"max_stencil_error", error}}
                .dump(2)
         << "\n";
  }
  std::fflush(stdout);
}

}  // namespace

EXADNN_FLOW_MODULE(diffusion_sim, diffusion_sim);
EXADNN_FLOW_MODULE(surrogate_train, surrogate_train);

}  // namespace exadnn::apps::diffusion
