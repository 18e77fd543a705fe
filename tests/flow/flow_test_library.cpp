// A workflow module in a shared library, loaded by the Executive from `run: lib.so:symbol`
// (tests/flow/executive_test.cpp). It checks that its arguments and communicator arrived and
// records its instance in the tuple space when the workflow has one. With `fail_rank: r`, local
// rank r throws while the others wait in an allreduce for it (peers stuck after a failure).
#include <string>

#include "exadnn/exadnn.h"
#include "exadnn/flow/module.h"
#include "exadnn/flow/tuple_space.h"

EXADNN_FLOW_EXPORT(flow_test_library_module) {
  const int expected = ctx.arg<int>("size");
  EXADNN_CHECK(ctx.comm().size() == expected, "flow_test_library_module", ctx.describe(),
               ": communicator of ", ctx.comm().size(), " ranks, expected ", expected);
  if (ctx.has_arg("fail_rank")) {
    if (ctx.comm().rank() == ctx.arg<int>("fail_rank"))
      throw exadnn::Error("flow_test_library_module",
                          "rank " + std::to_string(ctx.comm().rank()) + " gives up");
    exadnn::Tensor one = exadnn::full({1}, 1.0);
    ctx.comm().allreduce(one).wait();  // waits for the rank that threw
  }
  EXADNN_CHECK(ctx.arg<std::string>("greeting") == "hello", "flow_test_library_module",
               "wrong greeting");
  if (ctx.has_arg("key") && ctx.comm().rank() == 0)
    ctx.tuple_space().put(ctx.arg<std::string>("key") + "/" + std::to_string(ctx.instance()),
                          std::string_view("done"));
}
