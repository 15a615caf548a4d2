// A strided tensor view over a shared buffer: data type, shape, per-axis strides in elements
// (stride 0 repeats an element: broadcasting), and an element offset into the buffer. Views share
// the buffer; nothing is copied until Contiguous() is asked for a non-contiguous view.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "numerics/dtype.h"
#include "ref/tensor/shape.h"

namespace nnref {

using Strides = std::vector<int64_t>;

// Row-major strides of a dense tensor of `shape`.
Strides ContiguousStrides(const Shape& shape);

// Zero-filled bytes. Large buffers come straight from the kernel's zero pages (no memset, so a
// page is touched only when it is written), and freed ones are kept for reuse (see tensor.cc).
class Buffer {
 public:
  // `zero` = false: the caller overwrites every byte, so a reused mapping is not cleared first.
  explicit Buffer(size_t bytes, bool zero = true);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  size_t size() const { return bytes_; }

 private:
  size_t bytes_;
  size_t mapped_ = 0;  // bytes mapped with mmap (0: allocated with calloc)
  std::byte* data_;
};

class Tensor {
 public:
  Tensor() = default;
  // A new zero-filled contiguous tensor. The caller has checked the size (see CheckDimensions).
  static Tensor Allocate(DataType dtype, const Shape& shape);
  // A new contiguous tensor whose contents are unspecified: for kernels that write every element.
  static Tensor AllocateForOverwrite(DataType dtype, const Shape& shape);
  // A view; `strides` in elements, `offset` in elements from the buffer start.
  Tensor(DataType dtype, Shape shape, Strides strides, int64_t offset,
         std::shared_ptr<Buffer> buffer);

  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  size_t rank() const { return shape_.size(); }
  uint64_t element_count() const { return ElementCount(shape_); }
  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }
  bool valid() const { return buffer_ != nullptr; }
  bool IsContiguous() const;

  // Pointer to the element at offset 0 of the view.
  template <typename T>
  T* base() const {
    return reinterpret_cast<T*>(buffer_->data()) + offset_;
  }
  // Element at a row-major linear index of the view (walks the strides).
  template <typename T>
  T At(uint64_t linear) const {
    return base<T>()[LinearToOffset(linear)];
  }
  int64_t LinearToOffset(uint64_t linear) const;

  // Views (no copies).
  Tensor BroadcastTo(const Shape& target) const;  // target must be broadcast-compatible
  Tensor WithShape(const Shape& shape) const;     // contiguous only: same elements, new shape
  // Axis i of the result is axis perm[i] of this view (perm is a permutation of 0..rank-1).
  Tensor Permute(const std::vector<uint32_t>& perm) const;
  // Elements starts[i], starts[i]+steps[i], ... (sizes[i] of them) along every axis; steps >= 1.
  // The caller has checked the bounds.
  Tensor Slice(const std::vector<uint64_t>& starts, const std::vector<uint64_t>& sizes,
               const std::vector<uint64_t>& steps) const;
  // The elements of `axes` in reverse order (negative strides).
  Tensor Reverse(const std::vector<uint32_t>& axes) const;
  // Same elements in row-major order with a new shape of the same element count: a view whenever
  // strides for the new shape exist (each group of merged or split axes is one equally spaced
  // run: contiguous, permuted blocks kept whole, reversed or broadcast runs), else a dense copy.
  Tensor Reshape(const Shape& shape) const;

  // This tensor if contiguous, else a dense copy.
  Tensor Contiguous() const;
  // Contiguous bytes of the view (copying when strided).
  std::vector<std::byte> Bytes() const;

 private:
  DataType dtype_ = DataType::kFloat32;
  Shape shape_;
  Strides strides_;
  int64_t offset_ = 0;
  std::shared_ptr<Buffer> buffer_;
};

// N-d iteration over `shape`, advancing N offset cursors with their own strides (all of rank
// shape.size()). fn(const std::array<int64_t, N>& offsets) is called once per element in
// row-major order. The innermost axis runs as a plain loop.
template <size_t N, typename Fn>
void ForEachOffsets(const Shape& shape, const std::array<const Strides*, N>& strides, Fn&& fn) {
  const size_t rank = shape.size();
  std::array<int64_t, N> off{};
  if (rank == 0) {
    fn(off);
    return;
  }
  for (uint64_t d : shape) {
    if (d == 0) return;
  }
  std::vector<uint64_t> idx(rank, 0);
  const uint64_t inner = shape[rank - 1];
  std::array<int64_t, N> inner_stride{};
  for (size_t k = 0; k < N; ++k) inner_stride[k] = (*strides[k])[rank - 1];
  while (true) {
    std::array<int64_t, N> o = off;
    for (uint64_t i = 0; i < inner; ++i) {
      fn(o);
      for (size_t k = 0; k < N; ++k) o[k] += inner_stride[k];
    }
    // Advance the outer index (axes rank-2 .. 0) like an odometer.
    size_t ax = rank - 1;
    while (true) {
      if (ax == 0) return;
      --ax;
      ++idx[ax];
      for (size_t k = 0; k < N; ++k) off[k] += (*strides[k])[ax];
      if (idx[ax] < shape[ax]) break;
      for (size_t k = 0; k < N; ++k) {
        off[k] -= (*strides[k])[ax] * static_cast<int64_t>(shape[ax]);
      }
      idx[ax] = 0;
    }
  }
}

}  // namespace nnref
