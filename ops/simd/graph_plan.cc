#include "ops/simd/graph_plan.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "ref/error.h"

namespace nnref::simd {

namespace {

constexpr size_t kKept = SIZE_MAX;  // last reader of an operand the graph keeps

// Sorted union of two sorted lists.
std::vector<uint32_t> Union(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> u;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(u));
  return u;
}

bool Contains(const std::vector<uint32_t>& v, uint32_t x) {
  return std::binary_search(v.begin(), v.end(), x);
}

}  // namespace

GraphPlan::GraphPlan(const Graph& graph, std::span<const std::shared_ptr<const Kernel>> kernels)
    : kernels_(kernels.begin(), kernels.end()) {
  const size_t n = graph.operand_count();
  const std::vector<OperatorNode>& ops = graph.operators();
  auto desc = [&](uint32_t id) -> const OperandDescriptor& { return graph.operand({id}).desc; };

  // Lifetimes: an operator output lives from its producer to its last reader (to its producer
  // when nothing reads it); inputs, constants and graph outputs are kept.
  last_read_.assign(n, kKept);
  for (size_t i = 0; i < ops.size(); ++i) {
    for (OperandId id : ops[i].outputs) last_read_[id.value] = i;
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    for (OperandId id : ops[i].inputs) {
      if (last_read_[id.value] != kKept) last_read_[id.value] = i;
    }
  }
  for (const auto& [name, id] : graph.outputs()) last_read_[id.value] = kKept;
  constants_.resize(n);
  for (size_t v = 0; v < n; ++v) {
    const OperandNode& node = graph.operand({static_cast<uint32_t>(v)});
    if (node.kind == OperandNode::Kind::kConstant) constants_[v].data = node.constant;
  }

  // Which outputs may live in plan buffers: the single output of a kernel that writes into a
  // given tensor. Any other kernel's outputs may be views of its inputs (reshape, transpose,
  // split, ...): `roots` lists the plan-buffer operands whose buffer an operand may share.
  std::vector<bool> direct(ops.size(), false);
  std::vector<bool> pooled(n, false);
  std::vector<std::vector<uint32_t>> roots(n);
  for (size_t i = 0; i < ops.size(); ++i) {
    const OperatorNode& node = ops[i];
    direct[i] = kernels_[i] != nullptr && kernels_[i]->Into().direct && node.outputs.size() == 1;
    if (direct[i]) {
      const uint32_t o = node.outputs[0].value;
      pooled[o] = last_read_[o] != kKept;
      roots[o] = {o};
      continue;
    }
    std::vector<uint32_t> r;
    for (OperandId id : node.inputs) r = Union(r, roots[id.value]);
    for (OperandId id : node.outputs) roots[id.value] = r;
  }
  // A buffer a graph output may share escapes the call: not a plan buffer.
  for (const auto& [name, id] : graph.outputs()) {
    for (uint32_t r : roots[id.value]) pooled[r] = false;
  }
  // A plan buffer is busy until the last reader of every operand that may share it.
  std::vector<size_t> end(n, 0);
  for (size_t v = 0; v < n; ++v) {
    for (uint32_t r : roots[v]) end[r] = std::max(end[r], last_read_[v]);
  }
  for (size_t v = 0; v < n; ++v) {
    if (pooled[v] && end[v] == kKept) pooled[v] = false;
  }
  std::vector<std::vector<uint32_t>> ends_at(ops.size());
  for (size_t v = 0; v < n; ++v) {
    if (pooled[v]) ends_at[end[v]].push_back(static_cast<uint32_t>(v));
  }

  // Greedy interval colouring in operator order: an output takes the buffer of an input read for
  // the last time here when its kernel computes in place, else the smallest free buffer that
  // holds it (else the largest free one, grown; else a new one). Buffers are freed after the
  // operator whose reading ends their operand's life, so no other input shares the output's.
  std::vector<int32_t> slot(n, -1);
  std::vector<int32_t> free_slots;
  steps_.resize(ops.size());
  operand_slot_bytes_.assign(n, 0);
  for (size_t i = 0; i < ops.size(); ++i) {
    const OperatorNode& node = ops[i];
    Step& step = steps_[i];
    for (OperandId id : node.outputs) step.outputs.push_back(desc(id.value));
    std::string line = std::to_string(i) + " " + std::string(OpName(node.op)) + ": ";
    uint32_t taken = UINT32_MAX;
    const bool in_place = direct[i] && kernels_[i]->Into().in_place;
    if (in_place) {
      const uint32_t o = node.outputs[0].value;
      for (OperandId id : node.inputs) {
        const uint32_t x = id.value;
        if (graph.operand(id).kind == OperandNode::Kind::kOperatorOutput && !pooled[x] &&
            last_read_[x] == i && desc(x) == desc(o) &&
            std::find(step.fresh_candidates.begin(), step.fresh_candidates.end(), x) ==
                step.fresh_candidates.end()) {
          step.fresh_candidates.push_back(x);
        }
      }
    }
    if (direct[i] && pooled[node.outputs[0].value]) {
      const uint32_t o = node.outputs[0].value;
      operand_slot_bytes_[o] = desc(o).ByteLength();
      for (size_t k = 0; in_place && k < node.inputs.size() && taken == UINT32_MAX; ++k) {
        const uint32_t x = node.inputs[k].value;
        if (!pooled[x] || end[x] != i || !(desc(x) == desc(o))) continue;
        bool shared = false;  // another input may be a view of x's buffer
        for (OperandId other : node.inputs) {
          shared = shared || (other.value != x && Contains(roots[other.value], x));
        }
        if (!shared) taken = x;
      }
      step.mode = Mode::kInto;
      if (taken != UINT32_MAX) {
        slot[o] = slot[taken];
        step.in_place_of = taken;
        ++in_place_planned_;
        line += "in place of operand " + std::to_string(taken) + " (buffer " +
                std::to_string(slot[o]) + ")";
      } else {
        const uint64_t bytes = desc(o).ByteLength();
        auto best = free_slots.end();
        for (auto it = free_slots.begin(); it != free_slots.end(); ++it) {
          if (best == free_slots.end()) {
            best = it;
            continue;
          }
          const uint64_t have = buffer_bytes_[static_cast<size_t>(*it)];
          const uint64_t best_have = buffer_bytes_[static_cast<size_t>(*best)];
          const bool fits = have >= bytes, best_fits = best_have >= bytes;
          if ((fits && (!best_fits || have < best_have)) ||
              (!fits && !best_fits && have > best_have)) {
            best = it;
          }
        }
        if (best == free_slots.end()) {
          slot[o] = static_cast<int32_t>(buffer_bytes_.size());
          buffer_bytes_.push_back(bytes);
        } else {
          slot[o] = *best;
          free_slots.erase(best);
          uint64_t& have = buffer_bytes_[static_cast<size_t>(slot[o])];
          have = std::max(have, bytes);
        }
        line += "into buffer " + std::to_string(slot[o]);
        if (!step.fresh_candidates.empty()) line += ", or in place into a free input";
      }
      step.slot = slot[o];
    } else if (!step.fresh_candidates.empty()) {
      // An output the plan does not keep (a graph output, or one a graph output may view).
      step.mode = Mode::kFresh;
      line += "in place into a free input, else alone";
    } else {
      line += direct[i] ? "alone (output kept)" : "alone (its kernel allocates its output)";
    }
    for (uint32_t r : ends_at[i]) {
      if (r != taken) free_slots.push_back(slot[r]);
    }
    schedule_.push_back(std::move(line));
  }
}

uint64_t GraphPlan::buffer_bytes() const {
  return std::accumulate(buffer_bytes_.begin(), buffer_bytes_.end(), uint64_t{0});
}

uint64_t GraphPlan::pooled_bytes() const {
  return std::accumulate(operand_slot_bytes_.begin(), operand_slot_bytes_.end(), uint64_t{0});
}

std::unique_ptr<GraphPlan::Arena> GraphPlan::TakeArena() const {
  {
    std::lock_guard lock(mu_);
    if (!free_arenas_.empty()) {
      std::unique_ptr<Arena> a = std::move(free_arenas_.back());
      free_arenas_.pop_back();
      return a;
    }
  }
  auto a = std::make_unique<Arena>();
  for (uint64_t bytes : buffer_bytes_) {
    a->buffers.push_back(std::make_shared<Buffer>(static_cast<size_t>(bytes), false));
  }
  ++arenas_made_;
  return a;
}

void GraphPlan::GiveArena(std::unique_ptr<Arena> arena) const {
  std::lock_guard lock(mu_);
  free_arenas_.push_back(std::move(arena));
}

std::map<std::string, OperandValue> GraphPlan::Compute(
    const Graph& graph, const std::map<std::string, Tensor>& inputs) const {
  std::vector<OperandValue> values(graph.operand_count());
  for (const auto& [name, d] : graph.input_descriptors()) {
    const auto it = inputs.find(name);
    if (it == inputs.end()) ThrowTypeError("compute: input '" + name + "' was not given");
    if (it->second.dtype() != d.dataType || it->second.shape() != d.shape) {
      ThrowTypeError("compute: input '" + name + "' does not match its descriptor " + d.ToString());
    }
  }
  for (size_t i = 0; i < graph.operand_count(); ++i) {
    const OperandNode& node = graph.operand({static_cast<uint32_t>(i)});
    if (node.kind == OperandNode::Kind::kInput) {
      const auto it = inputs.find(node.name);
      if (it != inputs.end()) values[i].data = it->second;
    }
  }
  // The buffers go back to the free list even when a kernel throws.
  struct Lease {
    const GraphPlan& plan;
    std::unique_ptr<Arena> arena;
    ~Lease() {
      if (arena) plan.GiveArena(std::move(arena));
    }
  } lease{*this, buffer_bytes_.empty() ? nullptr : TakeArena()};
  // The views of plan buffers must be gone before the arena is given back.
  struct Clear {
    std::vector<OperandValue>& v;
    ~Clear() { v.clear(); }
  } clear{values};

  const std::vector<OperatorNode>& ops = graph.operators();
  std::vector<const OperandValue*> in;
  for (size_t i = 0; i < ops.size(); ++i) {
    const OperatorNode& node = ops[i];
    const Step& step = steps_[i];
    const std::vector<OperandDescriptor>& out_desc = step.outputs;
    in.clear();
    bool latitude = false;
    for (OperandId id : node.inputs) {
      const bool constant = graph.operand(id).kind == OperandNode::Kind::kConstant;
      in.push_back(constant ? &constants_[id.value] : &values[id.value]);
      latitude = latitude || in.back()->latitude.valid();
    }
    // The output's tensor: the buffer of an input it computes in place of (planned, or a fresh
    // input nothing else holds), else its plan buffer; none: the kernel allocates it.
    Tensor target;
    bool in_place = false;
    if (!latitude && step.mode != Mode::kAlone) {
      const uint64_t bytes = out_desc[0].ByteLength();
      const auto dense = [&](const Tensor& t) {
        return t.valid() && t.IsContiguous() && t.offset() == 0 && t.buffer()->size() >= bytes;
      };
      if (step.in_place_of >= 0) {
        // The plan's lifetimes cover every view of this operand, whichever buffer it is in.
        const Tensor& t = values[static_cast<size_t>(step.in_place_of)].data;
        if (dense(t)) target = t;
      }
      for (size_t k = 0; !target.valid() && k < step.fresh_candidates.size(); ++k) {
        const Tensor& t = values[step.fresh_candidates[k]].data;
        if (dense(t) && t.buffer().use_count() == 1) target = t;
      }
      in_place = target.valid();
      if (!in_place && step.mode == Mode::kInto) {
        const OperandDescriptor& d = out_desc[0];
        target = Tensor(d.dataType, d.shape, ContiguousStrides(d.shape), 0,
                        lease.arena->buffers[static_cast<size_t>(step.slot)]);
      }
    }
    if (target.valid()) {
      kernels_[i]->ComputeInto(in, out_desc, target);
      values[node.outputs[0].value].data = std::move(target);
      if (in_place) ++in_place_runs_;
    } else {
      std::vector<OperandValue> out = graph.RunOperator(i, in, kernels_[i].get());
      for (size_t k = 0; k < node.outputs.size(); ++k) {
        values[node.outputs[k].value] = std::move(out[k]);
      }
    }
    for (const std::vector<OperandId>* ids : {&node.inputs, &node.outputs}) {
      for (OperandId id : *ids) {
        if (last_read_[id.value] == i) values[id.value] = OperandValue();
      }
    }
  }
  std::map<std::string, OperandValue> result;
  for (const auto& [name, id] : graph.outputs()) result[name] = values[id.value];
  return result;
}

}  // namespace nnref::simd
