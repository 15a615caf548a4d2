// Whole-graph execution on the simd backend (issue 25; docs/architecture.md, "Graph execution on
// the simd backend"): one plan per compiled graph, decided once from the descriptors. The
// intermediates of kernels that can write into a given buffer (Kernel::Into: the element-wise
// family, softmax, layer and instance normalization) live in a few buffers the plan keeps across
// calls, assigned by a greedy interval colouring of their lifetimes (first writer to last reader,
// a view made of one by another kernel counting as a reader for as long as the view lives); an
// element-wise operator whose input of the same data type and shape is read for the last time
// takes that input's buffer (in place). The other operators run as in the per-operator path
// (Graph::RunOperator), their outputs fresh tensors; an element-wise operator may still write in
// place into such a fresh input when nothing else holds its buffer. Graph outputs are never in
// the plan's buffers. The check mode never uses the plan.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "ops/backend.h"

namespace nnref::simd {

class GraphPlan final : public GraphRunner {
 public:
  GraphPlan(const Graph& graph, std::span<const std::shared_ptr<const Kernel>> kernels);

  std::map<std::string, OperandValue> Compute(
      const Graph& graph, const std::map<std::string, Tensor>& inputs) const override;
  std::vector<std::string> Schedule() const override { return schedule_; }

  // What the plan decided, for tests and docs.
  size_t buffer_count() const { return buffer_bytes_.size(); }
  uint64_t buffer_bytes() const;  // their sum
  uint64_t pooled_bytes() const;  // the bytes of the intermediates they hold
  size_t in_place_planned() const { return in_place_planned_; }  // in place in a plan buffer
  // Over every call so far: operators computed in place (planned or into a fresh input), and the
  // sets of buffers allocated (one per call that found every set busy).
  uint64_t in_place_runs() const { return in_place_runs_.load(); }
  uint64_t arenas_made() const { return arenas_made_.load(); }

 private:
  enum class Mode : uint8_t {
    kAlone,  // Graph::RunOperator, as the per-operator path
    kInto,   // Kernel::ComputeInto, into plan buffer `slot` (or in place)
    kFresh,  // Kernel::ComputeInto in place into a free input, else as kAlone
  };
  struct Step {
    Mode mode = Mode::kAlone;
    int32_t slot = -1;
    int64_t in_place_of = -1;  // the plan-buffer input whose buffer the output takes
    // Inputs outside the plan's buffers read for the last time here, of the output's data type
    // and shape: the output takes one's buffer when at run time nothing else holds it.
    std::vector<uint32_t> fresh_candidates;
    std::vector<OperandDescriptor> outputs;  // the operator's output descriptors
  };
  // One set of plan buffers; a call takes a free one (or makes one) and gives it back.
  struct Arena {
    std::vector<std::shared_ptr<Buffer>> buffers;
  };
  std::unique_ptr<Arena> TakeArena() const;
  void GiveArena(std::unique_ptr<Arena> arena) const;

  std::vector<std::shared_ptr<const Kernel>> kernels_;
  std::vector<Step> steps_;
  std::vector<size_t> last_read_;        // per operand: last operator reading it (SIZE_MAX: kept)
  std::vector<OperandValue> constants_;  // per operand: the constants' values, made once
  std::vector<uint64_t> buffer_bytes_;
  std::vector<uint64_t> operand_slot_bytes_;  // per pooled operand: its byte length
  size_t in_place_planned_ = 0;
  std::vector<std::string> schedule_;

  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Arena>> free_arenas_;
  mutable std::atomic<uint64_t> in_place_runs_{0};
  mutable std::atomic<uint64_t> arenas_made_{0};
};

}  // namespace nnref::simd
