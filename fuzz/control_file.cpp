// Harness: workflow control files (flow/control_file.h): parsed and validated, then, when valid,
// the graph queries `exadnn flow` prints (order, ranks, text and DOT). No MPI.
#include <string>

#include "exadnn/flow/control_file.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exadnn;
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::accept_or_reject([&] {
    const flow::ControlFile cf = flow::parse_control_file(text, "fuzz.yaml", 8);
    cf.group_order();
    cf.min_ranks();
    flow::describe_graph(cf);
    flow::graph_dot(cf);
  });
  return 0;
}
