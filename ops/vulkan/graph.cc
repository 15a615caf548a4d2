// Graph execution on the vulkan backend (docs/vulkan.md#graph-execution): the operators whose
// kernels are made of dispatches (record.h) are recorded into one command buffer, their
// intermediates and scratch tensors left on the device; the graph inputs and constants they read
// are uploaded once and the graph outputs downloaded once. An operator whose kernel needs its
// inputs on the host (a split into boxes, an NNEF index checked there, ...) runs alone, as
// in the per-operator path: what was recorded before it is submitted, the operands it reads are
// downloaded, and recording resumes after it. Which operators run which way, and why, is decided
// once per graph from the descriptors (Schedule()). The runner keeps its buffers between runs,
// and with them the constants: they are uploaded by the first run only.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <tuple>

#include "ops/vulkan/family.h"
#include "ops/vulkan/record.h"
#include "ref/error.h"

namespace nnref::vk {

namespace {

uint64_t Padded(uint64_t bytes) { return std::max<uint64_t>(16, (bytes + 15) / 16 * 16); }

class VulkanGraphRunner final : public GraphRunner {
 public:
  VulkanGraphRunner(std::shared_ptr<Device> device, const Graph& graph,
                    std::span<const std::shared_ptr<const Kernel>> kernels)
      : device_(std::move(device)), kernels_(kernels.begin(), kernels.end()) {
    const size_t n = graph.operand_count();
    resident_.assign(n, false);
    packed_.resize(graph.operators().size());
    need_host_.assign(n, false);
    std::vector<bool> on_host(n, false);
    for (size_t i = 0; i < n; ++i) {
      on_host[i] =
          graph.operand({static_cast<uint32_t>(i)}).kind != OperandNode::Kind::kOperatorOutput;
    }
    for (size_t index = 0; index < graph.operators().size(); ++index) {
      const OperatorNode& node = graph.operators()[index];
      std::vector<OperandDescriptor> in, out;
      std::unique_ptr<bool[]> host(new bool[node.inputs.size() + 1]);
      for (size_t k = 0; k < node.inputs.size(); ++k) {
        in.push_back(graph.operand(node.inputs[k]).desc);
        host[k] = on_host[node.inputs[k].value];
      }
      for (OperandId id : node.outputs) out.push_back(graph.operand(id).desc);
      const auto* kernel = dynamic_cast<const RecordableKernel*>(kernels_[index].get());
      std::string why =
          kernel != nullptr
              ? kernel->NeedsHost(in, out, std::span<const bool>(host.get(), node.inputs.size()))
              : "its kernel prepares its operands on the host between dispatches";
      const std::string name = std::to_string(index) + " " + std::string(OpName(node.op));
      if (why.empty()) {
        recorded_.push_back(true);
        schedule_.push_back(name + ": recorded");
        continue;
      }
      recorded_.push_back(false);
      schedule_.push_back(name + ": per operator: " + why);
      for (OperandId id : node.inputs) need_host_[id.value] = true;
      for (OperandId id : node.outputs) on_host[id.value] = true;
    }
    for (const auto& [name, id] : graph.outputs()) need_host_[id.value] = true;
    AssignSlots(graph);
  }

  ~VulkanGraphRunner() override {
    for (Device::Buffer& b : buffers_) device_->DestroyBuffer(b);
    for (Device::Buffer& b : packed_) device_->DestroyBuffer(b);
    for (Device::Buffer& b : scratch_) device_->DestroyBuffer(b);
    for (Device::Buffer& b : constants_) device_->DestroyBuffer(b);
    device_->DestroyBuffer(arena_);
    device_->DestroyBuffer(upload_);
    device_->DestroyBuffer(download_);
  }

  std::vector<std::string> Schedule() const override { return schedule_; }

  std::map<std::string, OperandValue> Compute(
      const Graph& graph, const std::map<std::string, Tensor>& inputs) const override {
    if (graph.operators().size() != kernels_.size() || graph.operand_count() != slot_of_.size()) {
      throw std::logic_error("vulkan graph runner: not the graph it was made for");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    Execution execution(*this, graph);
    return execution.Compute(inputs);
  }

 private:
  // The device buffer of each operand (docs/vulkan.md#graph-execution): an intermediate that a
  // recorded operator writes and only recorded operators read (never brought back to the host)
  // shares a buffer with intermediates whose lives do not overlap it (from the operator writing
  // it to the last one reading it), the largest first-fit; every other operand (inputs,
  // constants, graph outputs, what the host reads or writes) has a buffer of its own.
  void AssignSlots(const Graph& graph) {
    const size_t n = graph.operand_count();
    const size_t ops = graph.operators().size();
    constexpr size_t kNever = static_cast<size_t>(-1);
    std::vector<size_t> def(n, kNever), last(n, kNever);
    for (size_t index = 0; index < ops; ++index) {
      const OperatorNode& node = graph.operators()[index];
      for (OperandId id : node.inputs) last[id.value] = index;
      for (OperandId id : node.outputs) def[id.value] = index;
    }
    slot_of_.assign(n, kNever);
    std::vector<uint64_t> slot_bytes;
    std::vector<size_t> free_after;  // per shared slot: the last operator reading its holder
    std::vector<bool> shared;
    const auto bytes_of = [&](size_t i) {
      return Padded(graph.operand({static_cast<uint32_t>(i)}).desc.ByteLength());
    };
    for (size_t index = 0; index < ops; ++index) {
      for (OperandId id : graph.operators()[index].outputs) {
        const size_t i = id.value;
        const bool poolable = recorded_[index] && !need_host_[i] && last[i] != kNever &&
                              def[i] == index && last[i] > index;
        if (!poolable) continue;
        // A slot whose holder's last reader comes before this operator: the smallest that fits,
        // else the largest (grown).
        size_t best = kNever;
        for (size_t k = 0; k < slot_bytes.size(); ++k) {
          if (!shared[k] || free_after[k] >= index) continue;
          if (best == kNever) {
            best = k;
            continue;
          }
          const bool fits = slot_bytes[k] >= bytes_of(i),
                     best_fits = slot_bytes[best] >= bytes_of(i);
          if ((fits && (!best_fits || slot_bytes[k] < slot_bytes[best])) ||
              (!fits && !best_fits && slot_bytes[k] > slot_bytes[best])) {
            best = k;
          }
        }
        if (best == kNever) {
          best = slot_bytes.size();
          slot_bytes.push_back(0);
          free_after.push_back(0);
          shared.push_back(true);
        }
        slot_bytes[best] = std::max(slot_bytes[best], bytes_of(i));
        free_after[best] = last[i];
        slot_of_[i] = best;
        ++pooled_;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (slot_of_[i] != kNever) continue;
      slot_of_[i] = slot_bytes.size();
      slot_bytes.push_back(bytes_of(i));
      free_after.push_back(0);
      shared.push_back(false);
    }
    slot_bytes_ = std::move(slot_bytes);
    shared_ = std::move(shared);
    buffers_.resize(slot_bytes_.size());
  }

  Device::Buffer& Buf(uint32_t id) const { return buffers_[slot_of_[id]]; }

  // One binding of a pending dispatch or one end of a copy: an operand's buffer, a node's packed
  // buffer, a scratch buffer, or bytes in the arena.
  struct Binding {
    int64_t operand = -1;
    int64_t packed = -1;            // the operator index of a packed buffer, when operand < 0
    int64_t scratch = -1;           // a scratch buffer, when operand < 0 and packed < 0
    uint64_t offset = 0, size = 0;  // in the arena, when all three are < 0
    int64_t constant = -1;          // else a constant host binding's buffer (Source::constant)
  };
  struct PendingCopy {
    Binding src, dst;
    uint64_t src_offset = 0, dst_offset = 0, size = 0;  // relative to the bindings
  };
  struct Pending {
    Shader shader = Shader::kLayout;  // unused for copies only
    std::vector<uint32_t> spec;
    std::vector<Binding> bindings;  // params, inputs..., output; empty: copies only
    uint64_t groups = 1;
    bool barrier = false;
    std::vector<PendingCopy> copies;  // before the dispatch
  };

  // The state of one Compute.
  class Execution final : public Sink {
   public:
    Execution(const VulkanGraphRunner& r, const Graph& graph)
        : r_(r),
          device_(*r.device_),
          graph_(graph),
          values_(graph.operand_count()),
          on_host_(graph.operand_count(), false),
          on_device_(graph.operand_count(), false) {}

    std::map<std::string, OperandValue> Compute(const std::map<std::string, Tensor>& inputs) {
      for (const auto& [name, desc] : graph_.input_descriptors()) {
        const auto it = inputs.find(name);
        if (it == inputs.end()) ThrowTypeError("compute: input '" + name + "' was not given");
        if (it->second.dtype() != desc.dataType || it->second.shape() != desc.shape) {
          ThrowTypeError("compute: input '" + name + "' does not match its descriptor " +
                         desc.ToString());
        }
      }
      for (size_t i = 0; i < values_.size(); ++i) {
        const OperandNode& n = graph_.operand({static_cast<uint32_t>(i)});
        if (n.kind == OperandNode::Kind::kConstant) {
          values_[i].data = n.constant;
          on_host_[i] = true;
        } else if (n.kind == OperandNode::Kind::kInput) {
          const auto it = inputs.find(n.name);
          if (it == inputs.end()) continue;
          values_[i].data = it->second;
          on_host_[i] = true;
        }
      }
      for (size_t index = 0; index < graph_.operators().size(); ++index) {
        const OperatorNode& node = graph_.operators()[index];
        if (r_.recorded_[index]) {
          Record(index, node);
          continue;
        }
        Flush();
        std::vector<const OperandValue*> in;
        for (OperandId id : node.inputs) {
          if (!on_host_[id.value]) throw std::logic_error("vulkan graph runner: input not on host");
          in.push_back(&values_[id.value]);
        }
        std::vector<OperandValue> out = graph_.RunOperator(index, in, r_.kernels_[index].get());
        for (size_t k = 0; k < node.outputs.size(); ++k) {
          values_[node.outputs[k].value] = std::move(out[k]);
          on_host_[node.outputs[k].value] = true;
        }
      }
      Flush();
      std::map<std::string, OperandValue> result;
      for (const auto& [name, id] : graph_.outputs()) {
        if (!on_host_[id.value]) throw std::logic_error("vulkan graph runner: output not on host");
        result[name] = values_[id.value];
      }
      return result;
    }

    // Sink: one dispatch of the node being recorded.
    void Run(Shader shader, std::span<const uint32_t> params, std::vector<Source> inputs,
             Target output, uint64_t groups, std::span<const uint32_t> spec) override {
      Pending p;
      p.shader = shader;
      p.spec.assign(spec.begin(), spec.end());
      p.groups = groups;
      p.copies = std::move(copies_);
      copies_.clear();
      copy_reads_.clear();
      copy_writes_.clear();
      p.bindings.push_back(Arena(std::as_bytes(params)));
      std::vector<size_t> reads;  // the buffers (slots, scratch keys) the dispatch reads
      for (const Source& s : inputs) {
        if (s.operand < 0 && s.scratch < 0 && !s.packed.empty()) {
          // The inputs copied one after the other into the node's packed buffer on the device.
          uint64_t offset = 0;
          Binding packed{-1, static_cast<int64_t>(index_), -1, 0, 0};
          for (size_t k : s.packed) {
            const uint32_t id = node_->inputs.at(k).value;
            OnDevice(id);
            const uint64_t bytes = graph_.operand({id}).desc.ByteLength();
            if (bytes > 0)
              p.copies.push_back({Binding{id, -1, -1, 0, 0}, packed, 0, offset, bytes});
            offset += bytes;
          }
          Device::Buffer& b = r_.packed_[index_];
          if (b.buffer == VK_NULL_HANDLE) b = device_.CreateBuffer(Padded(offset), false);
          p.bindings.push_back(packed);
          continue;
        }
        if (s.operand < 0 && s.scratch < 0) {
          p.bindings.push_back(s.constant ? Constant(s.host) : Arena(s.host));
          continue;
        }
        const Binding b = Bind(s);
        reads.push_back(Key(b));
        if (dirty_.count(reads.back()) != 0) p.barrier = true;  // read after write
        p.bindings.push_back(b);
      }
      const Binding out = Bind(output);
      p.bindings.push_back(out);
      // A buffer shared with an earlier intermediate (or a scratch buffer of an earlier node):
      // write after its reads or its write.
      const size_t out_key = Key(out);
      if (dirty_.count(out_key) != 0 || read_.count(out_key) != 0) p.barrier = true;
      if (p.barrier) {  // a global barrier: every earlier access is done, every write visible
        dirty_.clear();
        read_.clear();
      }
      read_.insert(reads.begin(), reads.end());
      dirty_.insert(out_key);
      pending_.push_back(std::move(p));
    }

    size_t Scratch(uint64_t bytes) override {
      const size_t k = scratch_count_++;
      if (r_.scratch_.size() <= k) r_.scratch_.resize(k + 1);
      Device::Buffer& b = r_.scratch_[k];
      if (b.size < Padded(bytes)) {
        // Nothing is in flight (each segment is waited for); the dispatches recorded so far
        // name the buffer by its number, resolved at the submission.
        device_.DestroyBuffer(b);
        b = device_.CreateBuffer(Padded(bytes), false);
      }
      return k;
    }

    // Sink: a copy between device buffers, recorded before the next dispatch with the copies
    // queued since the last one (between a shader-to-transfer and a transfer-to-shader barrier),
    // unless it reads what one of them writes or writes what one of them reads or writes: then
    // those go first, alone.
    void Copy(const Source& from, uint64_t from_offset, Target to, uint64_t to_offset,
              uint64_t bytes) override {
      if (bytes == 0) return;
      if (from.operand < 0 && from.scratch < 0 && !from.packed.empty()) {
        throw std::logic_error("vulkan graph runner: a packed source is not copied");
      }
      const Binding src = from.operand < 0 && from.scratch < 0 ? Arena(from.host) : Bind(from);
      const Binding dst = Bind(to);
      const size_t src_key = Key(src), dst_key = Key(dst);
      const auto overlaps = [](const std::vector<std::tuple<size_t, uint64_t, uint64_t>>& list,
                               size_t key, uint64_t begin, uint64_t end) {
        for (const auto& [k, b, e] : list) {
          if (k == key && b < end && begin < e) return true;
        }
        return false;
      };
      if (overlaps(copy_writes_, src_key, from_offset, from_offset + bytes) ||
          overlaps(copy_writes_, dst_key, to_offset, to_offset + bytes) ||
          overlaps(copy_reads_, dst_key, to_offset, to_offset + bytes)) {
        FlushCopies();
      }
      copies_.push_back({src, dst, from_offset, to_offset, bytes});
      copy_reads_.emplace_back(src_key, from_offset, from_offset + bytes);
      copy_writes_.emplace_back(dst_key, to_offset, to_offset + bytes);
    }

   private:
    void Record(size_t index, const OperatorNode& node) {
      node_ = &node;
      index_ = index;
      std::vector<const OperandValue*> in;
      std::vector<OperandDescriptor> in_desc, out_desc;
      for (OperandId id : node.inputs) {
        in.push_back(on_host_[id.value] ? &values_[id.value] : nullptr);
        in_desc.push_back(graph_.operand(id).desc);
      }
      for (OperandId id : node.outputs) {
        const OperandDescriptor& d = graph_.operand(id).desc;
        out_desc.push_back(d);
        if (d.ElementCount() == 0) {  // nothing to dispatch: empty on the host
          values_[id.value].data = Tensor::Allocate(d.dataType, d.shape);
          on_host_[id.value] = true;
        }
      }
      scratch_count_ = 0;
      constant_count_ = 0;
      static_cast<const RecordableKernel&>(*r_.kernels_[index]).Emit(*this, in, in_desc, out_desc);
      FlushCopies();  // a node's copies are done before the next node's work
      node_ = nullptr;
    }

    // The binding of an input or scratch source (uploaded first when on the host).
    Binding Bind(const Source& s) {
      if (s.scratch >= 0) return Binding{-1, -1, s.scratch, 0, 0};
      const uint32_t id = node_->inputs.at(static_cast<size_t>(s.operand)).value;
      OnDevice(id);
      return Binding{id, -1, -1, 0, 0};
    }

    // The binding of a node output (its buffer made when needed) or scratch tensor written.
    Binding Bind(Target t) {
      if (t.scratch >= 0) return Binding{-1, -1, t.scratch, 0, 0};
      const uint32_t out = node_->outputs.at(t.output).value;
      Allocate(out);
      if (!on_device_[out]) written_.push_back(out);
      on_device_[out] = true;
      return Binding{out, -1, -1, 0, 0};
    }

    // The key of a binding's buffer in the barrier bookkeeping: an operand's slot, or a scratch
    // buffer after every slot (the arena and packed buffers are never written by a shader).
    size_t Key(const Binding& b) const {
      if (b.operand >= 0) return r_.slot_of_[static_cast<size_t>(b.operand)];
      if (b.scratch >= 0) return r_.slot_bytes_.size() + static_cast<size_t>(b.scratch);
      return static_cast<size_t>(-1);
    }

    // The copies queued since the last dispatch, recorded alone.
    void FlushCopies() {
      if (copies_.empty()) return;
      Pending p;
      p.copies = std::move(copies_);
      copies_.clear();
      copy_reads_.clear();
      copy_writes_.clear();
      pending_.push_back(std::move(p));
    }

    // A constant host binding (made from the descriptors: the same every run) of the node being
    // recorded: its buffer, filled by the first run and kept (the constants' way).
    Binding Constant(std::span<const std::byte> bytes) {
      const auto key = std::make_pair(index_, constant_count_++);
      auto it = r_.constant_of_.find(key);
      if (it == r_.constant_of_.end()) {
        r_.constants_.push_back(device_.CreateBuffer(Padded(bytes.size()), false));
        r_.constant_filled_.push_back(false);
        it = r_.constant_of_.emplace(key, r_.constants_.size() - 1).first;
      }
      const size_t k = it->second;
      if (!r_.constant_filled_[k]) {  // filled once a submission that uploads it succeeded
        std::vector<std::byte> data(bytes.begin(), bytes.end());
        if (device_.staging()) {
          uploads_.emplace_back(r_.constants_[k].buffer, std::move(data));
        } else if (!data.empty()) {
          std::memcpy(r_.constants_[k].mapped, data.data(), data.size());  // nothing in flight
        }
        constants_filled_.push_back(k);
      }
      Binding b;
      b.constant = static_cast<int64_t>(k);
      return b;
    }

    // `bytes` appended to the arena (params and host-made inputs), zero-padded to whole 16-byte
    // words at the device's offset alignment.
    Binding Arena(std::span<const std::byte> bytes) {
      const uint64_t align = device_.info().min_storage_buffer_offset_alignment;
      const uint64_t offset = (arena_.size() + align - 1) / align * align;
      const uint64_t size = Padded(bytes.size());
      arena_.resize(offset + size);
      if (!bytes.empty()) std::memcpy(arena_.data() + offset, bytes.data(), bytes.size());
      return Binding{-1, -1, -1, offset, size};
    }

    Device::Buffer& Allocate(uint32_t id) {
      Device::Buffer& b = r_.Buf(id);
      if (b.buffer == VK_NULL_HANDLE)
        b = device_.CreateBuffer(r_.slot_bytes_[r_.slot_of_[id]], false);
      return b;
    }

    // Operand `id` on the device: uploaded from the host when it is not there yet.
    void OnDevice(uint32_t id) {
      if (on_device_[id]) return;
      if (r_.resident_[id]) {  // a constant uploaded by an earlier run, never written since
        on_device_[id] = true;
        return;
      }
      if (!on_host_[id]) throw std::logic_error("vulkan graph runner: operand on neither side");
      Device::Buffer& b = Allocate(id);
      if (graph_.operand({id}).kind == OperandNode::Kind::kConstant) constants_.push_back(id);
      std::vector<std::byte> bytes = values_[id].data.Bytes();
      if (device_.staging()) {
        uploads_.emplace_back(b.buffer, std::move(bytes));
      } else if (!bytes.empty()) {
        std::memcpy(b.mapped, bytes.data(), bytes.size());  // no device work is in flight
      }
      on_device_[id] = true;
    }

    // Submits what was recorded (one command buffer, one fence wait) and brings back the
    // operands the host needs (graph outputs, inputs of the operators run alone).
    void Flush() {
      if (pending_.empty() && uploads_.empty()) return;
      Device::Recording rec;
      Device::Buffer& arena = r_.arena_;
      if (arena.size < arena_.size()) {
        device_.DestroyBuffer(arena);
        arena = device_.CreateBuffer(std::max<uint64_t>(arena_.size(), 2 * arena.size), true);
      }
      if (!arena_.empty()) std::memcpy(arena.mapped, arena_.data(), arena_.size());
      // Staging: every upload through one host-visible buffer, every download through another.
      if (!uploads_.empty()) {
        uint64_t total = 0;
        for (const auto& [dst, bytes] : uploads_) total += Padded(bytes.size());
        Device::Buffer& up = r_.upload_;
        if (up.size < total) {
          device_.DestroyBuffer(up);
          up = device_.CreateBuffer(std::max<uint64_t>(total, 2 * up.size), true);
        }
        uint64_t offset = 0;
        for (const auto& [dst, bytes] : uploads_) {
          if (!bytes.empty())
            std::memcpy(static_cast<std::byte*>(up.mapped) + offset, bytes.data(), bytes.size());
          rec.uploads.push_back({up.buffer, dst, offset, 0, Padded(bytes.size())});
          offset += Padded(bytes.size());
        }
      }
      std::vector<std::pair<uint32_t, uint64_t>> downloads;  // operand, offset in download_
      uint64_t down_total = 0;
      for (uint32_t id : written_) {
        if (!r_.need_host_[id]) continue;
        downloads.emplace_back(id, down_total);
        down_total += Padded(graph_.operand({id}).desc.ByteLength());
      }
      if (device_.staging() && down_total > 0) {
        Device::Buffer& down = r_.download_;
        if (down.size < down_total) {
          device_.DestroyBuffer(down);
          down = device_.CreateBuffer(std::max<uint64_t>(down_total, 2 * down.size), true);
        }
        for (const auto& [id, offset] : downloads) {
          rec.downloads.push_back({r_.Buf(id).buffer, down.buffer, 0, offset,
                                   Padded(graph_.operand({id}).desc.ByteLength())});
        }
      }
      // The buffer, offset and size of a binding.
      const auto range = [&](const Binding& b) {
        if (b.packed >= 0) {
          const Device::Buffer& buf = r_.packed_[static_cast<size_t>(b.packed)];
          return Device::Range{buf.buffer, 0, buf.size};
        }
        if (b.scratch >= 0) {
          const Device::Buffer& buf = r_.scratch_[static_cast<size_t>(b.scratch)];
          return Device::Range{buf.buffer, 0, buf.size};
        }
        if (b.constant >= 0) {
          const Device::Buffer& buf = r_.constants_[static_cast<size_t>(b.constant)];
          return Device::Range{buf.buffer, 0, buf.size};
        }
        if (b.operand < 0) return Device::Range{arena.buffer, b.offset, b.size};
        const Device::Buffer& buf = r_.Buf(static_cast<uint32_t>(b.operand));
        return Device::Range{buf.buffer, 0, buf.size};
      };
      for (const Pending& p : pending_) {
        Device::RecordedDispatch d;
        d.shader = p.shader;
        d.spec = p.spec;
        d.groups = p.bindings.empty() ? 0 : p.groups;
        d.barrier = p.barrier;
        for (const PendingCopy& c : p.copies) {
          const Device::Range src = range(c.src), dst = range(c.dst);
          d.copies.push_back({src.buffer, dst.buffer, src.offset + c.src_offset,
                              dst.offset + c.dst_offset, c.size});
        }
        if (!p.bindings.empty()) {
          // Unused input bindings: the parameters again (never read).
          for (size_t i = 0; i < kBindings; ++i) d.bindings[i] = range(p.bindings[0]);
          for (size_t i = 0; i + 1 < p.bindings.size(); ++i) d.bindings[i] = range(p.bindings[i]);
          d.bindings[kBindings - 1] = range(p.bindings.back());
        }
        rec.dispatches.push_back(std::move(d));
      }
      device_.Execute(rec);
      for (uint32_t id : constants_) r_.resident_[id] = true;
      for (size_t k : constants_filled_) r_.constant_filled_[k] = true;
      constants_filled_.clear();
      for (const auto& [id, offset] : downloads) {
        const OperandDescriptor& desc = graph_.operand({id}).desc;
        Tensor t = Tensor::Allocate(desc.dataType, desc.shape);
        const uint64_t bytes = desc.ByteLength();
        const void* from = device_.staging()
                               ? static_cast<const std::byte*>(r_.download_.mapped) + offset
                               : r_.Buf(id).mapped;
        if (bytes > 0) std::memcpy(t.buffer()->data(), from, bytes);
        values_[id].data = std::move(t);
        on_host_[id] = true;
      }
      pending_.clear();
      uploads_.clear();
      constants_.clear();
      written_.clear();
      dirty_.clear();
      read_.clear();
      arena_.clear();
    }

    const VulkanGraphRunner& r_;
    Device& device_;
    const Graph& graph_;
    std::vector<OperandValue> values_;
    std::vector<bool> on_host_, on_device_;
    const OperatorNode* node_ = nullptr;  // the node being recorded
    size_t index_ = 0;                    // its index
    // The segment being recorded.
    std::vector<Pending> pending_;
    std::vector<std::byte> arena_;
    // Staging only: the bytes to upload into each buffer (operands, constant host bindings).
    std::vector<std::pair<VkBuffer, std::vector<std::byte>>> uploads_;
    std::vector<uint32_t> written_;
    std::vector<uint32_t> constants_;       // uploaded in this segment
    std::set<size_t> dirty_;                // buffers (slots) written since the last barrier
    std::set<size_t> read_;                 // buffers (slots) read since the last barrier
    size_t scratch_count_ = 0;              // the scratch buffers the node being recorded took
    size_t constant_count_ = 0;             // and its constant host bindings
    std::vector<size_t> constants_filled_;  // constant host bindings uploaded in this segment
    // The copies queued for the next dispatch, with the byte ranges they read and write (by key).
    std::vector<PendingCopy> copies_;
    std::vector<std::tuple<size_t, uint64_t, uint64_t>> copy_reads_, copy_writes_;
  };

  std::shared_ptr<Device> device_;
  std::vector<std::shared_ptr<const Kernel>> kernels_;
  std::vector<bool> recorded_;
  std::vector<bool> need_host_;  // graph outputs and inputs of operators run alone
  std::vector<std::string> schedule_;
  mutable std::mutex mutex_;  // one Compute at a time: the buffers are shared
  // Kept between runs (the shapes do not change): the operands' buffers (slots, AssignSlots), the
  // arena of parameters and host-made inputs, the staging buffers.
  std::vector<size_t> slot_of_;                  // per operand
  std::vector<uint64_t> slot_bytes_;             // per slot
  std::vector<bool> shared_;                     // per slot: shared by intermediates
  size_t pooled_ = 0;                            // intermediates in shared slots
  mutable std::vector<Device::Buffer> buffers_;  // per slot
  // The constants already on the device: uploaded once, by the first run that reads them.
  mutable std::vector<bool> resident_;
  mutable std::vector<Device::Buffer> packed_;  // per operator: concat's inputs packed
  // Scratch buffer k of every node (Sink::Scratch), grown to the largest.
  mutable std::vector<Device::Buffer> scratch_;
  // The constant host bindings (Source::constant): by operator and ordinal within its dispatches.
  mutable std::vector<Device::Buffer> constants_;
  mutable std::map<std::pair<size_t, size_t>, size_t> constant_of_;
  mutable std::vector<bool> constant_filled_;  // uploaded by a submission that succeeded
  mutable Device::Buffer arena_, upload_, download_;
};

}  // namespace

std::shared_ptr<const GraphRunner> MakeGraphRunner(
    std::shared_ptr<Device> device, const Graph& graph,
    std::span<const std::shared_ptr<const Kernel>> kernels) {
  return std::make_shared<VulkanGraphRunner>(std::move(device), graph, kernels);
}

}  // namespace nnref::vk
