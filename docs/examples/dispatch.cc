// The WebNN spec's dispatch example (§api-mlcontext-dispatch-examples) with nnref's C++ API:
// build C = 0.2 * A + B, create tensors, write the inputs, dispatch, read the result.
// Built by CMake as `webnn_example` and run by CTest (`example.dispatch`): it prints
// "Output value: 1 1 1 1" and exits 0 when the result is right.
#include <cstring>
#include <iostream>
#include <vector>

#include "runner/api/webnn.h"

namespace webnn = nnref::webnn;

int main() {
  try {
    const webnn::MLOperandDescriptor descriptor{nnref::DataType::kFloat32, {2, 2}};
    webnn::Context context = webnn::Context::Create().get();
    webnn::GraphBuilder builder(context);

    // 1. Create a computational graph 'C = 0.2 * A + B'.
    const webnn::Operand constant = builder.Constant(descriptor, std::vector<float>(4, 0.2f));
    const webnn::Operand A = builder.Input("A", descriptor);
    const webnn::Operand B = builder.Input("B", descriptor);
    const webnn::Operand C = builder.Add(builder.Mul(A, constant), B);

    // 2. Compile the graph.
    const webnn::Graph graph = builder.Build({{"C", C}}).get();

    // 3. Create reusable input and output tensors (the futures run concurrently, like
    //    Promise.all).
    const auto tensor_descriptor = [](const webnn::Operand& o, bool readable, bool writable) {
      webnn::MLTensorDescriptor d;
      d.dataType = o.dataType();
      d.shape = o.shape();
      d.readable = readable;
      d.writable = writable;
      return d;
    };
    auto pending_a = context.CreateTensor(tensor_descriptor(A, false, true));
    auto pending_b = context.CreateTensor(tensor_descriptor(B, false, true));
    auto pending_c = context.CreateTensor(tensor_descriptor(C, true, false));
    const webnn::Tensor inputTensorA = pending_a.get();
    const webnn::Tensor inputTensorB = pending_b.get();
    const webnn::Tensor outputTensorC = pending_c.get();

    // 4. Initialize the inputs.
    context.WriteTensor(inputTensorA, std::vector<float>(4, 1.0f));
    context.WriteTensor(inputTensorB, std::vector<float>(4, 0.8f));

    // 5. Execute the graph.
    context.Dispatch(graph, {{"A", inputTensorA}, {"B", inputTensorB}}, {{"C", outputTensorC}});

    // 6. Read back the computed result.
    const std::vector<std::byte> result = context.ReadTensor(outputTensorC).get();
    std::vector<float> values(result.size() / sizeof(float));
    std::memcpy(values.data(), result.data(), result.size());
    std::cout << "Output value:";
    for (float v : values) std::cout << " " << v;
    std::cout << "\n";
    return values == std::vector<float>{1, 1, 1, 1} ? 0 : 1;
  } catch (const nnref::WebnnError& e) {
    std::cerr << nnref::ErrorTypeName(e.type()) << ": " << e.what() << "\n";
    return 1;
  }
}
