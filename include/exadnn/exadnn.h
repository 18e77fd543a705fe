// The umbrella header: every public header of libexadnn (CMake target exadnn::exadnn, pkg-config
// exadnn), by layer. tests/core/umbrella_test.cpp checks that each header under include/exadnn is
// here or listed below, and builds a program that uses every group through this file alone.
//
// Not here, because they need a library of their own (include them directly and link it):
//   exadnn/dist/*.h          the MPI layer: exadnn::exadnn_dist (mpi.h and an MPI library)
//   exadnn/train/*.h         the train layer (Trainer, strategies, name tables, YAML configs):
//                            exadnn::exadnn_train (with exadnn_dist when MPI is built)
//   exadnn/flow/*.h          the workflow engine: exadnn::exadnn_flow (on top of exadnn_dist)
//   exadnn/backend/cuda/*.h  the CUDA backend: exadnn::exadnn_cuda (built when nvcc is found)
// The .def files under backend/ are X-macro lists that backend/dispatch.h includes, not headers.
#pragma once

// core: dtypes, shapes, devices, memory, tensors, errors, RNG
#include "exadnn/core/device.h"
#include "exadnn/core/dims.h"
#include "exadnn/core/dtype.h"
#include "exadnn/core/error.h"
#include "exadnn/core/half.h"
#include "exadnn/core/half_convert.h"
#include "exadnn/core/host_heap.h"
#include "exadnn/core/memory_format.h"
#include "exadnn/core/memory_manager.h"
#include "exadnn/core/plugin.h"
#include "exadnn/core/profiler.h"
#include "exadnn/core/rng.h"
#include "exadnn/core/state_dict.h"
#include "exadnn/core/storage.h"
#include "exadnn/core/tensor.h"

// backends: the dispatch table, the kernel signatures a backend registers, and the mixed-precision
// policy and its scopes (precision_policy.h: MatmulPrecision, precision::Autocast)
#include "exadnn/backend/conv_algorithm.h"
#include "exadnn/backend/denormals.h"
#include "exadnn/backend/dispatch.h"
#include "exadnn/backend/kernels.h"
#include "exadnn/backend/measured_routes.h"
#include "exadnn/backend/nn_kernels.h"
#include "exadnn/backend/optim_kernels.h"
#include "exadnn/backend/precision_policy.h"
#include "exadnn/backend/runtime.h"

// autograd: graph nodes, the backward engine, user-defined functions
#include "exadnn/autograd/engine.h"
#include "exadnn/autograd/function.h"
#include "exadnn/autograd/grad_mode.h"
#include "exadnn/autograd/node.h"

// ops: the functional API
#include "exadnn/ops/comparison.h"
#include "exadnn/ops/concat.h"
#include "exadnn/ops/conv.h"
#include "exadnn/ops/cross_entropy.h"
#include "exadnn/ops/elementwise.h"
#include "exadnn/ops/factories.h"
#include "exadnn/ops/inplace.h"
#include "exadnn/ops/linalg.h"
#include "exadnn/ops/normalization.h"
#include "exadnn/ops/operators.h"
#include "exadnn/ops/pool.h"
#include "exadnn/ops/reduction.h"
#include "exadnn/ops/size2.h"
#include "exadnn/ops/softmax.h"

// nn: modules, layers, losses, initialisers
#include "exadnn/nn/activation.h"
#include "exadnn/nn/batch_norm.h"
#include "exadnn/nn/container.h"
#include "exadnn/nn/conv.h"
#include "exadnn/nn/init.h"
#include "exadnn/nn/linear.h"
#include "exadnn/nn/loss.h"
#include "exadnn/nn/module.h"
#include "exadnn/nn/pooling.h"

// optim: optimizers, learning-rate schedulers, gradient clipping and scaling
#include "exadnn/optim/adagrad.h"
#include "exadnn/optim/adam.h"
#include "exadnn/optim/adam_options.h"
#include "exadnn/optim/adamw.h"
#include "exadnn/optim/clip_grad.h"
#include "exadnn/optim/cosine_annealing_lr.h"
#include "exadnn/optim/grad_scaler.h"
#include "exadnn/optim/linear_warmup.h"
#include "exadnn/optim/lr_scheduler.h"
#include "exadnn/optim/optimizer.h"
#include "exadnn/optim/rmsprop.h"
#include "exadnn/optim/sgd.h"
#include "exadnn/optim/step_lr.h"

// data: datasets, samplers, the data loader, checks of loaded data
#include "exadnn/data/batch_stream.h"
#include "exadnn/data/csv.h"
#include "exadnn/data/data_loader.h"
#include "exadnn/data/dataset.h"
#include "exadnn/data/distributed_sampler.h"
#include "exadnn/data/hdf5.h"
#include "exadnn/data/hdf5_dataset.h"
#include "exadnn/data/height_band.h"
#include "exadnn/data/idx.h"
#include "exadnn/data/subset.h"
#include "exadnn/data/tensor_dataset.h"
#include "exadnn/data/transforms.h"
#include "exadnn/data/validate.h"

// io: checkpoints and checked access to their fields, PNG charts and their PLplot page
#include "exadnn/io/checkpoint.h"
#include "exadnn/io/checkpoint_fields.h"
#include "exadnn/io/plot.h"
#include "exadnn/io/plot_page.h"

// parallel: shared-memory asynchronous SGD
#include "exadnn/async/async_trainer.h"
#include "exadnn/async/atomic_ops.h"
#include "exadnn/async/param_slab.h"

// precision: how accurate each matmul precision is (the policy itself is in backend)
#include "exadnn/precision/accuracy.h"
