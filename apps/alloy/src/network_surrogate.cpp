#include "alloy/network_surrogate.h"

#include <exadnn/exadnn.h>
#include <exadnn/train/trainer.h>

#include <cmath>
#include <stdexcept>

#include "alloy/descriptors.h"

namespace alloy {

using exadnn::Tensor;
namespace nn = exadnn::nn;

NetworkKind parse_network_kind(const std::string& name) {
  if (name == "features_mlp") return NetworkKind::features_mlp;
  if (name == "site_network") return NetworkKind::site_network;
  throw std::invalid_argument("alloy: unknown surrogate '" + name +
                              "' (known: features_mlp, site_network, and the linear pair_model)");
}

namespace {

// One MLP: in -> hidden... -> 1, tanh between.
std::shared_ptr<nn::Sequential> mlp(int64_t in, const std::vector<int64_t>& hidden) {
  auto net = std::make_shared<nn::Sequential>();
  for (const int64_t width : hidden) {
    net->push_back(std::make_shared<nn::Linear>(nn::LinearOptions(in, width)));
    net->push_back(std::make_shared<nn::Tanh>());
    in = width;
  }
  net->push_back(std::make_shared<nn::Linear>(nn::LinearOptions(in, 1)));
  return net;
}

// The site network: [B, S, F] -> the shared MLP on every site -> mean over the sites: [B, 1].
class SiteSum : public nn::Module {
 public:
  SiteSum(int64_t features, const std::vector<int64_t>& hidden)
      : site_(register_module("site", mlp(features, hidden))) {}
  Tensor forward(const Tensor& x) override {
    const int64_t b = x.size(0), s = x.size(1);
    const Tensor per_site = site_->forward(x.reshape({b * s, x.size(2)}));  // [B·S, 1]
    return exadnn::mean(per_site.reshape({b, s}), {1}, /*keepdim=*/true);
  }
  std::string name() const override { return "SiteSum"; }

 private:
  std::shared_ptr<nn::Sequential> site_;
};

// A site's own species one-hot, then the fraction of each species in each of its shells.
int64_t site_feature_count(const Lattice& lattice, int species) {
  return species * (1 + int64_t{lattice.shells()});
}

}  // namespace

// The trained network with its standardisation as buffers, so that one state dict holds all.
class Standardised : public nn::Module {
 public:
  Standardised(std::shared_ptr<nn::Module> net, int64_t features)
      : net_(register_module("net", std::move(net))),
        x_mean(exadnn::zeros({features})),
        x_scale(exadnn::ones({features})),
        y_stats(exadnn::from_vector<float>({0.0f, 1.0f})) {
    register_buffer("x_mean", &x_mean);
    register_buffer("x_scale", &x_scale);
    register_buffer("y_stats", &y_stats);  // the energy per site's mean and scale
  }
  Tensor forward(const Tensor& x) override { return net_->forward(x); }
  std::string name() const override { return "Standardised"; }

 private:
  std::shared_ptr<nn::Module> net_;

 public:
  Tensor x_mean, x_scale, y_stats;
};

struct NetworkSurrogate::Net {
  const Lattice* lattice;
  int species;
  NetworkKind kind;
  std::shared_ptr<Standardised> model;
  std::vector<double> x_mean, x_scale;  // features_mlp: the features' standardisation
  double y_mean = 0, y_scale = 1;       // the energies per site's

  // Builds the untrained model of `options` (the features' count follows the kind).
  void build(const NetworkOptions& options) {
    const int64_t f = kind == NetworkKind::features_mlp ? feature_count(*lattice, species)
                                                        : site_feature_count(*lattice, species);
    std::shared_ptr<nn::Module> net;
    if (kind == NetworkKind::features_mlp)
      net = mlp(f, options.hidden);
    else
      net = std::make_shared<SiteSum>(f, options.hidden);
    model = std::make_shared<Standardised>(net, f);
  }
  // The standardisation into the buffers, and back.
  void store_scaling() {
    if (!x_mean.empty()) {
      model->x_mean = exadnn::from_vector<float>(std::vector<float>(x_mean.begin(), x_mean.end()));
      model->x_scale =
          exadnn::from_vector<float>(std::vector<float>(x_scale.begin(), x_scale.end()));
    }
    model->y_stats =
        exadnn::from_vector<float>({static_cast<float>(y_mean), static_cast<float>(y_scale)});
  }
  void load_scaling() {
    if (kind == NetworkKind::features_mlp) {
      const std::vector<float> m = exadnn::to_vector<float>(model->x_mean.contiguous());
      const std::vector<float> sc = exadnn::to_vector<float>(model->x_scale.contiguous());
      x_mean.assign(m.begin(), m.end());
      x_scale.assign(sc.begin(), sc.end());
    }
    const std::vector<float> y = exadnn::to_vector<float>(model->y_stats.contiguous());
    y_mean = y[0];
    y_scale = y[1];
  }

  // The model's inputs for configurations: [B, F] or [B, S, F] f32.
  Tensor inputs(const std::vector<Occupation>& configurations) const {
    const int64_t b = static_cast<int64_t>(configurations.size());
    if (kind == NetworkKind::features_mlp) {
      const int64_t f = feature_count(*lattice, species);
      std::vector<float> x(static_cast<size_t>(b * f));
      const double per_site = 1.0 / static_cast<double>(lattice->sites());
      for (int64_t k = 0; k < b; ++k) {
        const std::vector<double> counts = pair_counts(*lattice, configurations[k], species);
        for (int64_t j = 0; j < f; ++j)
          x[k * f + j] = static_cast<float>((counts[j] * per_site - x_mean[j]) / x_scale[j]);
      }
      return exadnn::from_vector<float>(x, {b, f});
    }
    const int64_t s = lattice->sites(), f = site_feature_count(*lattice, species);
    std::vector<float> x(static_cast<size_t>(b * s * f), 0.0f);
    for (int64_t k = 0; k < b; ++k)
      for (int64_t i = 0; i < s; ++i) {
        float* row = &x[static_cast<size_t>((k * s + i) * f)];
        row[configurations[k][i]] = 1.0f;
        for (int sh = 0; sh < lattice->shells(); ++sh) {
          const float w = 1.0f / static_cast<float>(lattice->shell(sh).coordination);
          for (const int32_t j : lattice->neighbours(sh, i))
            row[species * (1 + sh) + configurations[k][j]] += w;
        }
      }
    return exadnn::from_vector<float>(x, {b, s, f});
  }
};

NetworkSurrogate::NetworkSurrogate(const Lattice& lattice, int species,
                                   const std::vector<Occupation>& configurations,
                                   const std::vector<double>& energies,
                                   const NetworkOptions& options)
    : net_(std::make_unique<Net>()) {
  if (configurations.size() < 4 || configurations.size() != energies.size())
    throw std::invalid_argument(
        "alloy: a network surrogate needs 4 or more configurations with "
        "one energy each (got " +
        std::to_string(configurations.size()) + " and " + std::to_string(energies.size()) + ")");
  Net& n = *net_;
  n.lattice = &lattice;
  n.species = species;
  n.kind = options.kind;
  // The training set: all configurations, or a bootstrap resample of them.
  std::vector<size_t> rows(configurations.size());
  Rng pick(options.seed * 31 + 7);
  for (size_t k = 0; k < rows.size(); ++k)
    rows[k] = options.bootstrap ? pick.below(static_cast<uint32_t>(rows.size())) : k;
  std::vector<Occupation> chosen;
  std::vector<double> per_site;
  for (const size_t k : rows) {
    chosen.push_back(configurations[k]);
    per_site.push_back(energies[k] / static_cast<double>(lattice.sites()));
  }
  // Standardisation of the targets, and of the features for the MLP.
  double sum = 0, sq = 0;
  for (const double e : per_site) sum += e;
  n.y_mean = sum / static_cast<double>(per_site.size());
  for (const double e : per_site) sq += (e - n.y_mean) * (e - n.y_mean);
  n.y_scale = std::sqrt(sq / static_cast<double>(per_site.size()));
  if (!(n.y_scale > 1e-12)) n.y_scale = 1.0;
  if (options.kind == NetworkKind::features_mlp) {
    const int64_t f = feature_count(lattice, species);
    n.x_mean.assign(static_cast<size_t>(f), 0.0);
    n.x_scale.assign(static_cast<size_t>(f), 0.0);
    std::vector<std::vector<double>> xs;
    for (const Occupation& c : chosen) xs.push_back(pair_counts(lattice, c, species));
    const double inv = 1.0 / static_cast<double>(lattice.sites()) / static_cast<double>(xs.size());
    for (const auto& x : xs)
      for (int64_t j = 0; j < f; ++j) n.x_mean[j] += x[j] * inv;
    for (const auto& x : xs)
      for (int64_t j = 0; j < f; ++j) {
        const double d = x[j] / static_cast<double>(lattice.sites()) - n.x_mean[j];
        n.x_scale[j] += d * d / static_cast<double>(xs.size());
      }
    for (double& s : n.x_scale) s = s > 1e-20 ? std::sqrt(s) : 1.0;  // a constant column stays
  }
  exadnn::manual_seed(options.seed);  // the initial weights
  n.build(options);
  n.store_scaling();
  n.load_scaling();  // the inputs below use the stored (f32) values, as a reloaded copy will

  std::vector<float> y;
  for (const double e : per_site) y.push_back(static_cast<float>((e - n.y_mean) / n.y_scale));
  const int64_t count = static_cast<int64_t>(y.size());
  auto data = std::make_shared<exadnn::data::TensorDataset>(
      n.inputs(chosen), exadnn::from_vector<float>(y, {count, 1}));

  exadnn::train::TrainConfig config;
  config.loss = "mse";
  config.optimizer.name = "adam";
  config.optimizer.lr = options.lr;
  config.optimizer.momentum = 0;
  config.epochs = options.epochs;
  config.data.batch_size = std::min<int64_t>(options.batch_size, count);
  config.seed = options.seed;
  exadnn::train::TrainerParts parts;
  parts.model = n.model;
  parts.data.train = data;
  parts.data.test = data;
  parts.score = [](nn::Module& m, const exadnn::train::TrainingData& d) {  // minus the MSE
    exadnn::NoGradGuard no_grad;
    const auto& set = dynamic_cast<const exadnn::data::TensorDataset&>(*d.train);
    return -nn::mse_loss(m.forward(set.inputs()), set.targets()).item<double>();
  };
  exadnn::train::Trainer trainer(config, {}, std::move(parts));
  final_loss_ = -trainer.fit();
}

NetworkSurrogate::NetworkSurrogate(const Lattice& lattice, int species,
                                   const NetworkOptions& options, const exadnn::StateDict& state)
    : net_(std::make_unique<Net>()) {
  net_->lattice = &lattice;
  net_->species = species;
  net_->kind = options.kind;
  net_->build(options);
  net_->model->load_state_dict(state);  // an Error naming a missing or misshapen tensor
  net_->load_scaling();
}

exadnn::StateDict NetworkSurrogate::state() const {
  return net_->model->state_dict();
}

std::vector<std::string> NetworkSurrogate::state_names(const Lattice& lattice, int species,
                                                       const NetworkOptions& options) {
  Net blank{&lattice, species, options.kind, nullptr, {}, {}, 0, 1};
  blank.build(options);
  std::vector<std::string> names;
  for (const auto& [name, tensor] : blank.model->state_dict()) names.push_back(name);
  return names;
}

NetworkSurrogate::~NetworkSurrogate() = default;
NetworkSurrogate::NetworkSurrogate(NetworkSurrogate&&) noexcept = default;
NetworkSurrogate& NetworkSurrogate::operator=(NetworkSurrogate&&) noexcept = default;

std::vector<double> NetworkSurrogate::energies(
    const std::vector<Occupation>& configurations) const {
  if (configurations.empty()) return {};
  exadnn::NoGradGuard no_grad;
  net_->model->eval();
  const Tensor out = net_->model->forward(net_->inputs(configurations));  // [B, 1]
  const std::vector<float> scaled = exadnn::to_vector<float>(out.contiguous());
  std::vector<double> result;
  for (const float v : scaled)
    result.push_back((v * net_->y_scale + net_->y_mean) *
                     static_cast<double>(net_->lattice->sites()));
  return result;
}

SurrogateEnsemble::SurrogateEnsemble(const Lattice& lattice, int species,
                                     const std::vector<Occupation>& configurations,
                                     const std::vector<double>& energies,
                                     const NetworkOptions& options, int members) {
  if (members < 1) throw std::invalid_argument("alloy: an ensemble needs 1 or more members");
  for (int k = 0; k < members; ++k) {
    NetworkOptions member = options;
    member.seed = options.seed + static_cast<uint64_t>(k);
    member.bootstrap = members > 1;
    members_.emplace_back(lattice, species, configurations, energies, member);
  }
}

SurrogateEnsemble::SurrogateEnsemble(std::vector<NetworkSurrogate> members)
    : members_(std::move(members)) {
  if (members_.empty()) throw std::invalid_argument("alloy: an ensemble needs 1 or more members");
}

void SurrogateEnsemble::predict(const std::vector<Occupation>& configurations,
                                std::vector<double>& mean, std::vector<double>& spread) const {
  const size_t n = configurations.size();
  mean.assign(n, 0.0);
  spread.assign(n, 0.0);
  std::vector<std::vector<double>> all;
  for (const NetworkSurrogate& m : members_) all.push_back(m.energies(configurations));
  for (size_t c = 0; c < n; ++c) {
    for (const auto& e : all) mean[c] += e[c] / static_cast<double>(all.size());
    for (const auto& e : all) spread[c] += (e[c] - mean[c]) * (e[c] - mean[c]);
    spread[c] = all.size() > 1 ? std::sqrt(spread[c] / static_cast<double>(all.size() - 1)) : 0.0;
  }
}

FitQuality fit_quality(const std::vector<double>& predicted, const std::vector<double>& reference,
                       int64_t sites) {
  if (predicted.size() != reference.size() || reference.empty())
    throw std::invalid_argument("alloy: fit quality of mismatched or empty energy lists");
  const double n = static_cast<double>(reference.size()), per = 1.0 / static_cast<double>(sites);
  double mean = 0, ss_res = 0, ss_tot = 0;
  for (const double r : reference) mean += r * per / n;
  for (size_t k = 0; k < reference.size(); ++k) {
    ss_res += (predicted[k] - reference[k]) * per * (predicted[k] - reference[k]) * per;
    ss_tot += (reference[k] * per - mean) * (reference[k] * per - mean);
  }
  return {1000.0 * std::sqrt(ss_res / n), ss_tot > 0 ? 1.0 - ss_res / ss_tot : 0.0};
}

}  // namespace alloy
