#include "ref/tensor/tensor.h"

#include <cassert>

namespace nnref {

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
