#include "runner/fault_injection.h"

#include <cstdlib>
#include <optional>

#include "numerics/cast.h"
#include "ref/error.h"

namespace nnref {

namespace {

class CorruptKernel final : public Kernel {
 public:
  CorruptKernel(std::shared_ptr<const Kernel> k, uint64_t element, double value)
      : k_(std::move(k)), element_(element), value_(value) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    std::vector<OperandValue> r = k_->Compute(in, out);
    Tensor& t = r.at(0).data;
    if (element_ < t.element_count()) {
      t = Copy(t);  // a fresh buffer: never write through a view into an input
      DispatchDataType(t.dtype(), [&]<typename T>() {
        t.base<T>()[element_] = CastNumber<T>(MLNumber::FromDouble(value_));
      });
    }
    return r;
  }

 private:
  static Tensor Copy(const Tensor& t) {
    Tensor c = Tensor::Allocate(t.dtype(), t.shape());
    const std::vector<std::byte> bytes = t.Bytes();
    std::copy(bytes.begin(), bytes.end(), c.buffer()->data());
    return c;
  }
  std::shared_ptr<const Kernel> k_;
  uint64_t element_;
  double value_;
};

class FaultInjectingBackend final : public Backend {
 public:
  FaultInjectingBackend(std::shared_ptr<const Backend> inner, std::string op, uint64_t element,
                        double value)
      : inner_(std::move(inner)),
        op_(std::move(op)),
        id_(ParseOpId(op_)),
        element_(element),
        value_(value) {}
  std::string_view name() const override { return inner_->name(); }
  std::string Describe() const override {
    return inner_->Describe() + " with a fault injected into " + op_ + " element " +
           std::to_string(element_) + " (test hook)";
  }
  std::optional<std::string> Unavailable() const override { return inner_->Unavailable(); }
  std::optional<std::string> Unsupported(OpId op, DataType type) const override {
    return inner_->Unsupported(op, type);
  }
  std::shared_ptr<const Kernel> MakeKernel(const Graph& graph, size_t index,
                                           std::string& why) const override {
    std::shared_ptr<const Kernel> k = inner_->MakeKernel(graph, index, why);
    if (!k || graph.operators()[index].op != id_) return k;
    return std::make_shared<CorruptKernel>(std::move(k), element_, value_);
  }

 private:
  std::shared_ptr<const Backend> inner_;
  std::string op_;
  std::optional<OpId> id_;  // nullopt (not a method name): no operator is corrupted
  uint64_t element_;
  double value_;
};

}  // namespace

std::shared_ptr<const Backend> MakeFaultInjectingBackend(std::shared_ptr<const Backend> inner,
                                                         std::string op, uint64_t element,
                                                         double value) {
  return std::make_shared<FaultInjectingBackend>(std::move(inner), std::move(op), element, value);
}

std::shared_ptr<const Backend> MakeFaultInjectingBackend(std::shared_ptr<const Backend> inner,
                                                         const std::string& spec) {
  const size_t a = spec.find(':');
  const size_t b = a == std::string::npos ? a : spec.find(':', a + 1);
  const auto bad = [&] {
    return InputError("--inject-fault " + spec + ": expected OP:ELEMENT:VALUE, e.g. mul:4:9");
  };
  if (b == std::string::npos || a == 0) throw bad();
  const std::string element_text = spec.substr(a + 1, b - a - 1);
  const std::string value_text = spec.substr(b + 1);
  char* end = nullptr;
  const unsigned long long element = std::strtoull(element_text.c_str(), &end, 10);
  if (element_text.empty() || *end != '\0') throw bad();
  const double value = std::strtod(value_text.c_str(), &end);
  if (value_text.empty() || *end != '\0') throw bad();
  return MakeFaultInjectingBackend(std::move(inner), spec.substr(0, a), element, value);
}

}  // namespace nnref
