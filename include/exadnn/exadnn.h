// The umbrella header: everything a user of exadnn needs.
#pragma once

#include "exadnn/core/device.h"
#include "exadnn/core/dims.h"
#include "exadnn/core/dtype.h"
#include "exadnn/core/error.h"
#include "exadnn/ops/factories.h"
#include "exadnn/core/half.h"
#include "exadnn/core/memory_manager.h"
#include "exadnn/core/rng.h"
#include "exadnn/core/state_dict.h"
#include "exadnn/backend/runtime.h"
#include "exadnn/core/tensor.h"

#include "exadnn/backend/dispatch.h"

#include "exadnn/autograd/engine.h"
#include "exadnn/autograd/function.h"
#include "exadnn/autograd/grad_mode.h"

#include "exadnn/ops/comparison.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/inplace.h"
#include "exadnn/ops/linalg.h"
#include "exadnn/ops/operators.h"
#include "exadnn/ops/reduction.h"

#include "exadnn/nn/activation.h"
#include "exadnn/nn/container.h"
#include "exadnn/nn/init.h"
#include "exadnn/nn/linear.h"
#include "exadnn/nn/loss.h"
#include "exadnn/nn/module.h"
