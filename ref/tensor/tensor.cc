#include "ref/tensor/tensor.h"

#include <sys/mman.h>

#include <cassert>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace nnref {

namespace {

constexpr size_t kMapThreshold = size_t{1} << 21;  // 2 MiB: one transparent huge page
// Buffers from 256 KiB up are mapped too (in steps of 64 KiB) and kept for reuse: glibc's malloc
// maps such sizes itself and unmaps them on free (its threshold only rises above a size once a
// larger block was freed), so a kernel that allocated its output on every call took a page fault
// per 4 KiB of it on every call (the simd relu(matmul) benchmark: 1.5 MB, a third of its time).
constexpr size_t kMediumThreshold = size_t{1} << 18;
constexpr size_t kMediumStep = size_t{1} << 16;

// Mappings of freed large buffers, kept for reuse: a fresh page costs a fault and the kernel's
// zeroing (on a virtual machine the dearer part), where a kept one is only cleared with memset.
// A run that frees its inputs before decoding its expected outputs (nnref run) then touches no
// new memory for them. Bounded, so at most kCacheBytes stay resident unused.
class MappingCache {
 public:
  static constexpr size_t kCacheBytes = size_t{1} << 30;
  static constexpr size_t kCacheEntries = 8;

  // A kept mapping of exactly `mapped` bytes, or null. The most recently freed first: it is the
  // likeliest to be resident (a buffer that was allocated but never written, such as a
  // tensor's initial zeros, is not).
  void* Take(size_t mapped) {
    std::lock_guard lock(mu_);
    for (size_t i = entries_.size(); i-- > 0;) {
      if (entries_[i].second == mapped) {
        void* p = entries_[i].first;
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
        total_ -= mapped;
        return p;
      }
    }
    return nullptr;
  }
  // Keeps the mapping when there is room (evicting the oldest), else unmaps it.
  void Give(void* p, size_t mapped) {
    std::lock_guard lock(mu_);
    if (mapped > kCacheBytes) {
      munmap(p, mapped);
      return;
    }
    while (!entries_.empty() &&
           (total_ + mapped > kCacheBytes || entries_.size() >= kCacheEntries)) {
      munmap(entries_.front().first, entries_.front().second);
      total_ -= entries_.front().second;
      entries_.erase(entries_.begin());
    }
    entries_.emplace_back(p, mapped);
    total_ += mapped;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<void*, size_t>> entries_;  // oldest first
  size_t total_ = 0;
};

MappingCache& Cache() {
  static MappingCache* cache = new MappingCache;  // never destroyed: buffers may outlive main
  return *cache;
}

}  // namespace

Buffer::Buffer(size_t bytes, bool zero) : bytes_(bytes), data_(nullptr) {
  if (bytes >= kMediumThreshold) {
    const size_t step = bytes >= kMapThreshold ? kMapThreshold : kMediumStep;
    const size_t mapped = (bytes + step - 1) & ~(step - 1);
    if (void* kept = Cache().Take(mapped)) {
      if (zero) std::memset(kept, 0, bytes);
      mapped_ = mapped;
      data_ = static_cast<std::byte*>(kept);
      return;
    }
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      // NNREF_HUGEPAGES=1 in the environment advises transparent huge pages (advice only):
      // fewer faults, but with the kernel's usual "madvise" defrag setting a fresh huge page
      // can stall on direct compaction for far longer than the faults it saves, so it is off by
      // default (measurements in docs/performance.md).
      static const bool huge = [] {
        const char* v = std::getenv("NNREF_HUGEPAGES");
        return v != nullptr && std::string_view(v) == "1";
      }();
      if (huge && mapped >= kMapThreshold) madvise(p, mapped, MADV_HUGEPAGE);
      mapped_ = mapped;
      data_ = static_cast<std::byte*>(p);
      return;
    }
  }
  data_ = static_cast<std::byte*>(zero ? std::calloc(bytes == 0 ? 1 : bytes, 1)
                                       : std::malloc(bytes == 0 ? 1 : bytes));
  if (data_ == nullptr) throw std::bad_alloc();
}

Buffer::~Buffer() {
  if (mapped_ != 0) {
    Cache().Give(data_, mapped_);
  } else {
    std::free(data_);
  }
}

Strides ContiguousStrides(const Shape& shape) {
  Strides s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= static_cast<int64_t>(shape[i]);
  }
  return s;
}

Tensor Tensor::Allocate(DataType dtype, const Shape& shape) {
  const size_t bytes = static_cast<size_t>(ElementCount(shape)) * ElementSize(dtype);
  return Tensor(dtype, shape, ContiguousStrides(shape), 0, std::make_shared<Buffer>(bytes));
}

Tensor Tensor::AllocateForOverwrite(DataType dtype, const Shape& shape) {
  const size_t bytes = static_cast<size_t>(ElementCount(shape)) * ElementSize(dtype);
  return Tensor(dtype, shape, ContiguousStrides(shape), 0, std::make_shared<Buffer>(bytes, false));
}

Tensor::Tensor(DataType dtype, Shape shape, Strides strides, int64_t offset,
               std::shared_ptr<Buffer> buffer)
    : dtype_(dtype),
      shape_(std::move(shape)),
      strides_(std::move(strides)),
      offset_(offset),
      buffer_(std::move(buffer)) {
  assert(shape_.size() == strides_.size());
}

bool Tensor::IsContiguous() const {
  const Strides dense = ContiguousStrides(shape_);
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (shape_[i] != 1 && strides_[i] != dense[i]) return false;
  }
  return true;
}

int64_t Tensor::LinearToOffset(uint64_t linear) const {
  int64_t off = 0;
  for (size_t i = shape_.size(); i-- > 0;) {
    const uint64_t d = shape_[i];
    off += static_cast<int64_t>(linear % d) * strides_[i];
    linear /= d;
  }
  return off;
}

Tensor Tensor::BroadcastTo(const Shape& target) const {
  // Align trailing axes; a size-1 axis (or a missing leading axis) gets stride 0.
  Strides s(target.size(), 0);
  const size_t lead = target.size() - shape_.size();
  for (size_t i = 0; i < shape_.size(); ++i) {
    s[lead + i] = (shape_[i] == 1 && target[lead + i] != 1) ? 0 : strides_[i];
  }
  return Tensor(dtype_, target, std::move(s), offset_, buffer_);
}

Tensor Tensor::WithShape(const Shape& shape) const {
  assert(IsContiguous());
  return Tensor(dtype_, shape, ContiguousStrides(shape), offset_, buffer_);
}

Tensor Tensor::Permute(const std::vector<uint32_t>& perm) const {
  assert(perm.size() == shape_.size());
  Shape shape(perm.size());
  Strides strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    shape[i] = shape_[perm[i]];
    strides[i] = strides_[perm[i]];
  }
  return Tensor(dtype_, std::move(shape), std::move(strides), offset_, buffer_);
}

Tensor Tensor::Slice(const std::vector<uint64_t>& starts, const std::vector<uint64_t>& sizes,
                     const std::vector<uint64_t>& steps) const {
  assert(starts.size() == shape_.size() && sizes.size() == shape_.size() &&
         steps.size() == shape_.size());
  int64_t offset = offset_;
  Strides strides(shape_.size());
  for (size_t i = 0; i < shape_.size(); ++i) {
    // An empty slice may start at the end of the axis; it addresses no element.
    if (sizes[i] != 0) offset += static_cast<int64_t>(starts[i]) * strides_[i];
    strides[i] = strides_[i] * static_cast<int64_t>(steps[i]);
  }
  return Tensor(dtype_, sizes, std::move(strides), offset, buffer_);
}

Tensor Tensor::Reverse(const std::vector<uint32_t>& axes) const {
  int64_t offset = offset_;
  Strides strides = strides_;
  for (uint32_t a : axes) {
    if (shape_[a] == 0) continue;
    offset += static_cast<int64_t>(shape_[a] - 1) * strides[a];
    strides[a] = -strides[a];
  }
  return Tensor(dtype_, shape_, std::move(strides), offset, buffer_);
}

namespace {

// Strides under which `new_shape` walks the elements of the view (old_shape, old_strides) in the
// same row-major order, or nullopt when no such strides exist. Size-1 axes of the view are
// dropped; then the two shapes are cut into the shortest groups of consecutive axes with equal
// products. Within a group the view's axes must be chained (stride[k] == stride[k+1] *
// size[k+1]: the group is one run of equally spaced elements, whatever the sign or zero stride),
// and the new axes of the group are laid out densely over that run.
std::optional<Strides> ReshapeViewStrides(const Shape& old_shape, const Strides& old_strides,
                                          const Shape& new_shape) {
  Shape dims;
  Strides steps;
  for (size_t i = 0; i < old_shape.size(); ++i) {
    if (old_shape[i] == 1) continue;
    dims.push_back(old_shape[i]);
    steps.push_back(old_strides[i]);
  }
  Strides out(new_shape.size(), 1);  // trailing size-1 new axes keep stride 1 (never stepped)
  size_t old_begin = 0, new_begin = 0;
  while (old_begin < dims.size() && new_begin < new_shape.size()) {
    size_t old_end = old_begin, new_end = new_begin;
    uint64_t old_product = dims[old_begin], new_product = new_shape[new_begin];
    // Equal total counts (all dimensions >= 1) keep both indices in range.
    while (old_product != new_product) {
      if (new_product < old_product) {
        new_product *= new_shape[++new_end];
      } else {
        old_product *= dims[++old_end];
      }
    }
    for (size_t k = old_begin; k < old_end; ++k) {
      if (steps[k] != steps[k + 1] * static_cast<int64_t>(dims[k + 1])) return std::nullopt;
    }
    out[new_end] = steps[old_end];
    for (size_t k = new_end; k > new_begin; --k) {
      out[k - 1] = out[k] * static_cast<int64_t>(new_shape[k]);
    }
    old_begin = old_end + 1;
    new_begin = new_end + 1;
  }
  return out;
}

}  // namespace

Tensor Tensor::Reshape(const Shape& shape) const {
  assert(ElementCount(shape) == element_count());
  if (IsContiguous()) return WithShape(shape);
  if (element_count() != 0) {
    if (auto strides = ReshapeViewStrides(shape_, strides_, shape)) {
      return Tensor(dtype_, shape, std::move(*strides), offset_, buffer_);
    }
  }
  return Contiguous().WithShape(shape);
}

Tensor Tensor::Contiguous() const {
  if (IsContiguous()) return *this;
  Tensor out = Allocate(dtype_, shape_);
  const size_t es = ElementSize(dtype_);
  const std::byte* src = buffer_->data() + static_cast<size_t>(offset_) * es;
  std::byte* dst = out.buffer_->data();
  const Strides dense = ContiguousStrides(shape_);
  ForEachOffsets<2>(shape_, {&strides_, &dense}, [&](const std::array<int64_t, 2>& o) {
    std::memcpy(dst + static_cast<size_t>(o[1]) * es, src + o[0] * static_cast<int64_t>(es), es);
  });
  return out;
}

std::vector<std::byte> Tensor::Bytes() const {
  const Tensor c = Contiguous();
  const size_t es = ElementSize(dtype_);
  const size_t n = static_cast<size_t>(element_count()) * es;
  const std::byte* p = c.buffer_->data() + static_cast<size_t>(c.offset_) * es;
  return std::vector<std::byte>(p, p + n);
}

}  // namespace nnref
