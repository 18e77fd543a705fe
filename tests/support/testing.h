// Shared test helpers: tensor comparison, finite-difference gradient checks, error matching.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "exadnn/exadnn.h"
#include "tolerance.h"

namespace exadnn::testing {

/// Values of t as doubles, row-major, whatever its dtype, device and strides.
std::vector<double> values(const Tensor& t);

/// Checks shape equality and |actual - expected| <= atol + rtol * |expected| elementwise, using
/// the tolerance of actual's dtype. NaNs must match NaNs.
::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected);
::testing::AssertionResult all_close(const Tensor& actual, const std::vector<double>& expected,
                                     Tolerance tol);

/// A function of tensors, differentiated by gradcheck.
using TensorFunction = std::function<Tensor(const std::vector<Tensor>&)>;

/// Compares autograd gradients of f at `inputs` (f64 leaves that require grad; any strides)
/// with central finite differences. f's output may have any shape: it is reduced with fixed
/// random weights so every output element contributes.
::testing::AssertionResult gradcheck(const TensorFunction& f, const std::vector<Tensor>& inputs);

/// An f64 leaf that requires grad, drawn from N(0,1) with a fixed seed.
Tensor random_leaf(const Shape& shape, uint64_t seed = 1);
/// An f64 leaf with the given shape whose memory is not contiguous (a transposed base).
Tensor strided_leaf(const Shape& shape, uint64_t seed = 1);

/// The files mapped into this process (/proc/self/maps) whose path contains one of `names`, one
/// line per name found ("" when none): e.g. {"libcudart", "libhdf5"}.
std::string libraries_mapped(const std::vector<std::string>& names);

}  // namespace exadnn::testing

/// Expects `statement` to throw exadnn::Error whose message contains every string listed.
#define EXPECT_EXADNN_ERROR(statement, ...)                                     \
  do {                                                                          \
    try {                                                                       \
      statement;                                                                \
      ADD_FAILURE() << "expected exadnn::Error from: " #statement;              \
    } catch (const ::exadnn::Error& e) {                                        \
      for (const std::string& fragment : std::vector<std::string>{__VA_ARGS__}) \
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)      \
            << "message \"" << e.what() << "\" lacks \"" << fragment << "\"";   \
    }                                                                           \
  } while (0)
