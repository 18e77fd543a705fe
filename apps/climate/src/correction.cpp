#include "climate/correction.h"

#include <exadnn/exadnn.h>

#include "climate/compress_fields.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace climate {

namespace nn = exadnn::nn;
using exadnn::Tensor;

namespace {

// [B, in, n+2H, n+2H] → [B, out, n, n]: unpadded 3×3 convolutions of the given dilations
// (H = Σ dilations), ReLU between (the first and hidden ones `width` channels wide).
std::shared_ptr<nn::Sequential> plain_cnn(int channels_in, int channels, int width,
                                          const std::vector<int>& dilations) {
  auto net = std::make_shared<nn::Sequential>();
  int in = channels_in;
  const size_t depth = dilations.size();
  for (size_t k = 0; k < depth; ++k) {
    const int out = k + 1 == depth ? channels : width;
    net->push_back(std::make_shared<nn::Conv2d>(
        nn::Conv2dOptions(in, out, 3).dilation(exadnn::Size2(dilations[k]))));
    if (k + 1 < depth) net->push_back(std::make_shared<nn::ReLU>());
    in = out;
  }
  return net;
}

// Two padded 3×3 convolutions with ReLU after each: [B, in, s, s] → [B, out, s, s].
std::shared_ptr<nn::Sequential> double_conv(int in, int out) {
  auto block = std::make_shared<nn::Sequential>();
  block->push_back(std::make_shared<nn::Conv2d>(nn::Conv2dOptions(in, out, 3).padding(1)));
  block->push_back(std::make_shared<nn::ReLU>());
  block->push_back(std::make_shared<nn::Conv2d>(nn::Conv2dOptions(out, out, 3).padding(1)));
  block->push_back(std::make_shared<nn::ReLU>());
  return block;
}

// [B, C, s, s] → [B, C, 2s, 2s], each value repeated over a 2×2 block (a broadcast view, so the
// gradient sums each block).
Tensor upsample2(const Tensor& x) {
  const exadnn::Shape s = x.shape();
  return x.unsqueeze(3)
      .unsqueeze(5)
      .expand({s[0], s[1], s[2], 2, s[3], 2})
      .reshape({s[0], s[1], 2 * s[2], 2 * s[3]});
}

// The U-Net of CorrectionOptions::levels: [B, in, w, w] → [B, out, w − 2 crop, w − 2 crop], w
// divisible by 2^levels.
class UNet : public nn::Module {
 public:
  UNet(int channels_in, int channels, int width, int levels, int crop) : crop_(crop) {
    int in = channels_in;
    for (int k = 0; k < levels; ++k) {
      down_.push_back(register_module("down" + std::to_string(k), double_conv(in, width << k)));
      in = width << k;
    }
    bottom_ = register_module("bottom", double_conv(in, width << levels));
    for (int k = levels - 1; k >= 0; --k)  // up_[k]: the way back up to level k
      up_.insert(up_.begin(),
                 register_module("up" + std::to_string(k),
                                 double_conv((width << (k + 1)) + (width << k), width << k)));
    head_ = register_module("head",
                            std::make_shared<nn::Conv2d>(nn::Conv2dOptions(width, channels, 1)));
  }
  Tensor forward(const Tensor& x) override {
    std::vector<Tensor> skips;
    Tensor h = x;
    for (const auto& down : down_) {
      h = down->forward(h);
      skips.push_back(h);
      h = exadnn::avg_pool2d(h, 2);
    }
    h = bottom_->forward(h);
    for (size_t k = skips.size(); k-- > 0;)
      h = up_[k]->forward(exadnn::cat({upsample2(h), skips[k]}, 1));
    h = head_->forward(h);
    const int64_t n = h.shape()[2] - 2 * crop_;
    return h.narrow(2, crop_, n).narrow(3, crop_, n);
  }
  std::string name() const override { return "UNet"; }

 private:
  std::vector<std::shared_ptr<nn::Sequential>> down_, up_;
  std::shared_ptr<nn::Sequential> bottom_;
  std::shared_ptr<nn::Conv2d> head_;
  int crop_;
};

// The options' dilations, 1 for each convolution when none are given.
std::vector<int> dilations_of(const CorrectionOptions& o) {
  return o.dilations.empty() ? std::vector<int>(static_cast<size_t>(std::max(o.depth, 0)), 1)
                             : o.dilations;
}

// The network: the plain CNN or the U-Net of the options.
std::shared_ptr<nn::Module> network(int channels_in, const CorrectionOptions& o, int halo) {
  if (o.levels > 0) return std::make_shared<UNet>(channels_in, o.fields, o.width, o.levels, halo);
  return plain_cnn(channels_in, o.fields, o.width, dilations_of(o));
}

}  // namespace

// The CNN with each field's normalisation as a buffer [3, C]: rows input mean, input scale,
// residual scale.
struct Correction::Net : public nn::Module {
  Net(int channels_in, const CorrectionOptions& options, int halo)
      : cnn(register_module("cnn", network(channels_in, options, halo))),
        norm(exadnn::from_vector<float>(std::vector<float>(3 * options.fields, 1.0f),
                                        {3, options.fields})),
        gain(exadnn::from_vector<float>(std::vector<float>(options.fields, 1.0f),
                                        {options.fields})) {
    register_buffer("norm", &norm);
    register_buffer("gain", &gain);
  }
  Tensor forward(const Tensor& x) override { return cnn->forward(x); }
  std::string name() const override { return "ClimateCorrection"; }

  std::shared_ptr<nn::Module> cnn;
  Tensor norm;
  Tensor gain;               // [C]: each field's correction is scaled by it (fit_gains)
  std::vector<float> stats;  // norm's values on the host: [3 C]
};

Correction::Correction(const CubedSphere& mesh, const CorrectionOptions& options)
    : mesh_(mesh),
      options_(options),
      halo_(mesh, reach(options, mesh.ne() * mesh.nodes_1d())),
      weights_(face_area_weights(mesh)) {
  EXADNN_CHECK(options.fields >= 1, "climate::Correction", "fields = ", options.fields,
               ": need at least one field");
  EXADNN_CHECK(options.width >= 1, "climate::Correction", "width = ", options.width,
               ": need at least one hidden channel");
  EXADNN_CHECK(options.depth >= 2, "climate::Correction", "depth = ", options.depth,
               ": need at least two convolutions");
  EXADNN_CHECK(
      options.dilations.empty() || static_cast<int>(options.dilations.size()) == options.depth,
      "climate::Correction", options.dilations.size(), " dilations for depth ", options.depth,
      ": give one per convolution, or none");
  for (const int d : options.dilations)
    EXADNN_CHECK(d >= 1, "climate::Correction", "dilation ", d, ": need at least 1");
  for (const int period : options.periods)
    EXADNN_CHECK(period >= 2, "climate::Correction", "period ", period, ": need at least 2");
  const int w = halo_.width(), H = halo_.halo();
  for (const int period : options.periods)
    for (int axis = 0; axis < 2; ++axis)  // rows, then columns
      for (int r = 0; r < w; ++r)
        for (int c = 0; c < w; ++c) {
          const int index = (axis == 0 ? r : c) - H, phase = ((index % period) + period) % period;
          phases_.push_back(2.0f * static_cast<float>(phase) / static_cast<float>(period - 1) -
                            1.0f);
        }
  exadnn::manual_seed(options.seed);
  net_ = std::make_shared<Net>(input_channels(), options, H);
  net_->stats.assign(static_cast<size_t>(3 * options.fields), 1.0f);
  for (int c = 0; c < options.fields; ++c) net_->stats[c] = 0.0f;  // means 0, scales 1
  net_->norm = exadnn::from_vector<float>(net_->stats, {3, options.fields});
}

Correction::~Correction() = default;
Correction::Correction(Correction&&) noexcept = default;

std::shared_ptr<nn::Module> Correction::model() const {
  return net_;
}

int Correction::reach(const CorrectionOptions& options, int n) {
  EXADNN_CHECK(options.levels >= 0 && options.levels <= 6, "climate::Correction",
               "levels = ", options.levels, ": need 0 (the plain CNN) to 6");
  EXADNN_CHECK(options.halo >= 0, "climate::Correction", "halo = ", options.halo,
               ": need at least 0");
  if (options.levels > 0) {
    const int multiple = 1 << options.levels;
    int halo = options.halo > 0 ? options.halo : 8;
    while ((n + 2 * halo) % multiple != 0) ++halo;
    return halo;
  }
  int sum = 0;
  for (const int d : dilations_of(options)) sum += d;
  return sum;
}

int Correction::input_channels() const {
  return options_.fields + 2 * static_cast<int>(options_.periods.size());
}

int64_t Correction::input_floats() const {
  return int64_t{input_channels()} * halo_.width() * halo_.width();
}
int64_t Correction::target_floats() const {
  return int64_t{options_.fields} * halo_.n() * halo_.n();
}

namespace {

// Scales below these (in the fields' SI units) are round-off, not variation: Galewsky's v is 0
// at day 0 but for ~1e-16 m/s, and dividing by that would blow the next step's inputs up. An input
// scale that small counts as 1; a residual that small (the field compressed exactly so far) gets
// the residual scale 0: nothing to correct, so the network's output for that field is not used.
constexpr double kMinScale = 1e-9, kMinResidualScale = 1e-12;

void check_fields(const Fields& f, int count, int n, const char* which) {
  EXADNN_CHECK(static_cast<int>(f.size()) == count, "climate::Correction", which, " has ", f.size(),
               " fields, the network takes ", count);
  for (size_t c = 0; c < f.size(); ++c)
    EXADNN_CHECK(f[c].n == n && f[c].data.size() == static_cast<size_t>(6) * n * n,
                 "climate::Correction", which, " field ", c, " has face size ", f[c].n, " (",
                 f[c].data.size(), " values), the mesh ", n);
}

}  // namespace

void Correction::observe(const Fields& decompressed, const Fields& original) {
  const int C = options_.fields;
  check_fields(decompressed, C, halo_.n(), "the decompressed pair");
  check_fields(original, C, halo_.n(), "the original pair");
  seen_.resize(C);
  sum_.resize(C);
  sum_sq_.resize(C);
  res_sq_.resize(C);
  std::vector<float>& s = net_->stats;
  for (int c = 0; c < C; ++c) {
    const std::vector<double>& d = decompressed[c].data;
    const std::vector<double>& o = original[c].data;
    for (size_t k = 0; k < d.size(); ++k) {
      sum_[c] += d[k];
      sum_sq_[c] += d[k] * d[k];
      res_sq_[c] += (o[k] - d[k]) * (o[k] - d[k]);
    }
    seen_[c] += static_cast<double>(d.size());
    const double mean = sum_[c] / seen_[c];
    const double scale = std::sqrt(std::max(0.0, sum_sq_[c] / seen_[c] - mean * mean));
    const double rscale = std::sqrt(res_sq_[c] / seen_[c]);
    s[c] = static_cast<float>(mean);
    s[C + c] = scale > kMinScale ? static_cast<float>(scale) : 1.0f;
    s[2 * C + c] = rscale > kMinResidualScale ? static_cast<float>(rscale) : 0.0f;
  }
  net_->norm = exadnn::from_vector<float>(s, {3, C});
}

void Correction::normalise(int64_t count, float* inputs, float* targets) const {
  const int C = options_.fields, Cin = input_channels();
  const int64_t in = int64_t{halo_.width()} * halo_.width(), out = int64_t{halo_.n()} * halo_.n();
  const std::vector<float>& s = net_->stats;
  for (int64_t e = 0; e < count; ++e)
    for (int c = 0; c < C; ++c) {  // the fields; the phase channels stay
      float* x = inputs + (e * Cin + c) * in;
      for (int64_t k = 0; k < in; ++k) x[k] = (x[k] - s[c]) / s[C + c];
      float* y = targets + (e * C + c) * out;
      const float rscale = s[2 * C + c];  // 0: an exact field, whose target is 0
      for (int64_t k = 0; k < out; ++k) y[k] = rscale > 0 ? y[k] / rscale : 0.0f;
    }
}

void Correction::inputs(const Fields& decompressed, float* x) const {
  const int C = options_.fields, Cin = input_channels();
  const int64_t plane = int64_t{halo_.width()} * halo_.width();
  for (int f = 0; f < 6; ++f) {
    float* xf = x + f * Cin * plane;
    for (int c = 0; c < C; ++c) halo_.halo_face(decompressed[c], f, xf + c * plane);
    std::copy(phases_.begin(), phases_.end(), xf + C * plane);
  }
}

void Correction::samples(const Fields& decompressed, const Fields& original, float* inputs_out,
                         float* targets) const {
  const int C = options_.fields, n = halo_.n();
  check_fields(decompressed, C, n, "the decompressed pair");
  check_fields(original, C, n, "the original pair");
  inputs(decompressed, inputs_out);
  const int64_t face = int64_t{n} * n;
  for (int f = 0; f < 6; ++f)
    for (int c = 0; c < C; ++c) {
      const double* d = decompressed[c].data.data() + f * face;
      const double* o = original[c].data.data() + f * face;
      float* y = targets + (static_cast<int64_t>(f) * C + c) * face;
      for (int64_t k = 0; k < face; ++k) y[k] = static_cast<float>(o[k] - d[k]);
    }
}

Fields Correction::corrections(const Fields& decompressed) const {
  const int C = options_.fields, Cin = input_channels(), n = halo_.n(), w = halo_.width();
  check_fields(decompressed, C, n, "the decompressed input");
  std::vector<float> x(static_cast<size_t>(6) * Cin * w * w);
  inputs(decompressed, x.data());
  const std::vector<float>& s = net_->stats;
  for (int f = 0; f < 6; ++f)
    for (int c = 0; c < C; ++c) {
      float* xf = x.data() + (static_cast<int64_t>(f) * Cin + c) * w * w;
      for (int k = 0; k < w * w; ++k) xf[k] = (xf[k] - s[c]) / s[C + c];
    }
  std::vector<float> y;
  {
    exadnn::NoGradGuard no_grad;
    const bool was_training = net_->is_training();
    net_->eval();
    y = exadnn::to_vector<float>(net_->forward(exadnn::from_vector<float>(x, {6, Cin, w, w})));
    net_->train(was_training);
  }
  const int64_t face = int64_t{n} * n;
  Fields out(C, FaceField(n));
  for (int c = 0; c < C; ++c) {
    for (int f = 0; f < 6; ++f)
      for (int64_t k = 0; k < face; ++k)
        out[c].data[f * face + k] = double{y[(f * C + c) * face + k]} * s[2 * C + c];
    if (projection_) projection_(c, decompressed[c], out[c]);
    remove_weighted_mean(weights_, out[c]);  // mass-neutral
  }
  return out;
}

Fields Correction::apply(const Fields& decompressed) const {
  const Fields correction = corrections(decompressed);
  const std::vector<float> gain = gains();
  Fields out = decompressed;
  for (size_t c = 0; c < out.size(); ++c)
    for (size_t k = 0; k < out[c].data.size(); ++k)
      out[c].data[k] += double{gain[c]} * correction[c].data[k];
  return out;
}

std::vector<float> Correction::gains() const {
  return exadnn::to_vector<float>(net_->gain.contiguous());
}

std::vector<float> Correction::fit_gains(const std::vector<Fields>& decompressed,
                                         const std::vector<Fields>& original) {
  EXADNN_CHECK(decompressed.size() == original.size(), "climate::Correction::fit_gains",
               decompressed.size(), " decompressed and ", original.size(), " original steps");
  const int C = options_.fields;
  std::vector<double> rc(C, 0.0), cc(C, 0.0);  // Σ residual · correction, Σ correction²
  for (size_t k = 0; k < decompressed.size(); ++k) {
    check_fields(original[k], C, halo_.n(), "the original pair");
    const Fields c = corrections(decompressed[k]);
    for (int f = 0; f < C; ++f)
      for (size_t i = 0; i < c[f].data.size(); ++i) {
        rc[f] += (original[k][f].data[i] - decompressed[k][f].data[i]) * c[f].data[i];
        cc[f] += c[f].data[i] * c[f].data[i];
      }
  }
  std::vector<float> gain(C, 1.0f);
  for (int f = 0; f < C && !decompressed.empty(); ++f)
    gain[f] = cc[f] > 0 ? static_cast<float>(std::clamp(rc[f] / cc[f], 0.0, 1.0)) : 0.0f;
  net_->gain = exadnn::from_vector<float>(gain, {C});
  return gain;
}

exadnn::StateDict Correction::state() const {
  return net_->state_dict();
}

void Correction::load(const exadnn::StateDict& state) {
  if (state.contains("gain")) {
    net_->load_state_dict(state);  // an Error naming a missing or misshapen tensor
  } else {  // stored before the gains existed: every field's correction whole
    exadnn::StateDict with_gains = state;
    with_gains.insert("gain", exadnn::from_vector<float>(std::vector<float>(options_.fields, 1.0f),
                                                         {options_.fields}));
    net_->load_state_dict(with_gains);
  }
  net_->stats = exadnn::to_vector<float>(net_->norm.contiguous());
}

int64_t Correction::bytes() const {
  int64_t count = net_->parameter_count();
  for (const auto& [name, t] : net_->named_buffers()) count += t.numel();
  return count * static_cast<int64_t>(sizeof(float));
}

Fields correction_fields(const ShallowWater& solver, const SwState& U) {
  Fields out{gather_face_field(solver, U, 0), FaceField(), FaceField()};
  velocity_face_fields(solver, U, out[1], out[2]);
  return out;
}

SwState state_from_correction_fields(const ShallowWater& solver, const Fields& fields) {
  EXADNN_CHECK(fields.size() == 3, "state_from_correction_fields", "h, u, v expected, got ",
               fields.size(), " fields");
  SwState U(solver.state_size(), 0.0);
  scatter_face_field(solver, fields[0], 0, U);
  set_velocity_face_fields(solver, fields[1], fields[2], U);
  return U;
}

FaceField face_area_weights(const CubedSphere& mesh) {
  const FaceHalo layout(mesh, 0);
  const int n = layout.n();
  FaceField w(n);
  for (int f = 0; f < 6; ++f)
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) w.at(f, r, c) = mesh.area_weight(layout.node(f, r, c));
  return w;
}

double integral(const FaceField& weights, const FaceField& field) {
  EXADNN_CHECK(weights.data.size() == field.data.size(), "climate::integral", "a field of ",
               field.data.size(), " values with ", weights.data.size(), " weights");
  double sum = 0;
  for (size_t k = 0; k < field.data.size(); ++k) sum += weights.data[k] * field.data[k];
  return sum;
}

void remove_weighted_mean(const FaceField& weights, FaceField& correction) {
  double area = 0;
  for (const double w : weights.data) area += w;
  const double mean = integral(weights, correction) / area;
  for (double& v : correction.data) v -= mean;
}

}  // namespace climate
