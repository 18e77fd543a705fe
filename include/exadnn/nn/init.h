// Parameter initialisers (in place, under no-grad). Defaults follow common practice (PyTorch's).
#pragma once

#include "exadnn/core/rng.h"
#include "exadnn/core/tensor.h"

namespace exadnn::nn::init {

/// Fan-in and fan-out of a weight: [out, in] for linear, [out, in/groups, kh, kw] for conv.
struct Fans {
  int64_t in;
  int64_t out;
};
Fans fans(const Tensor& weight);

/// Gain for a nonlinearity: "linear"/"sigmoid" 1, "tanh" 5/3, "relu" sqrt(2),
/// "leaky_relu" sqrt(2 / (1 + slope^2)).
double gain(const std::string& nonlinearity, double slope = 0.01);

void constant_(const Tensor& t, double value);
void zeros_(const Tensor& t);
void ones_(const Tensor& t);
/// U(a, b).
void uniform_(const Tensor& t, double a, double b, Generator* gen = nullptr);
/// N(mean, std^2).
void normal_(const Tensor& t, double mean, double std, Generator* gen = nullptr);
/// U(-g·sqrt(6/(fan_in+fan_out)), +...).
void xavier_uniform_(const Tensor& t, double gain = 1.0, Generator* gen = nullptr);
/// N(0, g^2·2/(fan_in+fan_out)).
void xavier_normal_(const Tensor& t, double gain = 1.0, Generator* gen = nullptr);
/// U(-b, b) with b = gain(nonlinearity, a)·sqrt(3/fan_in) (fan_out if !fan_in_mode).
void kaiming_uniform_(const Tensor& t, double a = 0.0,
                      const std::string& nonlinearity = "leaky_relu", bool fan_in_mode = true,
                      Generator* gen = nullptr);
/// N(0, (gain/sqrt(fan))^2).
void kaiming_normal_(const Tensor& t, double a = 0.0,
                     const std::string& nonlinearity = "leaky_relu", bool fan_in_mode = true,
                     Generator* gen = nullptr);

}  // namespace exadnn::nn::init
