#include "ops/simd/copy.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace nnref::simd {

namespace {

class FnKernel final : public Kernel {
 public:
  explicit FnKernel(ComputeFn fn) : fn_(std::move(fn)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return fn_(in, out);
  }

 private:
  ComputeFn fn_;
};

// A transposing copy: the source runs contiguous along outer axis k of the plan while its inner
// axis (contiguous in the destination) strides it, so a row-by-row copy touches a new cache line
// and page for every element. Copying 32 x 32 tiles keeps both sides in cache. Work units are
// strips of 32 positions along k (disjoint outputs). False when the plan is not of that kind.
bool TiledCopy(const RowPlan<2>& plan, const std::byte* s, std::byte* d, int64_t es,
               const Config& config) {
  constexpr uint64_t kTile = 32;
  const int64_t di = plan.inner_stride[0], si = plan.inner_stride[1];
  if (si == 1 || si == 0 || plan.inner < kTile / 2) return false;
  size_t k = plan.outer.size();
  for (size_t a = 0; a < plan.outer.size(); ++a) {
    if (plan.outer_strides[1][a] == 1 && plan.outer[a] >= kTile / 2) k = a;
  }
  if (k == plan.outer.size()) return false;
  Shape batch;
  std::array<Strides, 2> batch_strides;
  for (size_t a = 0; a < plan.outer.size(); ++a) {
    if (a == k) continue;
    batch.push_back(plan.outer[a]);
    for (size_t q = 0; q < 2; ++q) batch_strides[q].push_back(plan.outer_strides[q][a]);
  }
  const uint64_t rows = plan.outer[k], cols = plan.inner;
  const uint64_t strips = (rows + kTile - 1) / kTile;
  const int64_t dk = plan.outer_strides[0][k];
  DispatchSize(es, [&]<typename U>() {
    const U* src = reinterpret_cast<const U*>(s);
    U* dst = reinterpret_cast<U*>(d);
    Parallel(config, ElementCount(batch) * strips, kTile * cols, [&](uint64_t begin, uint64_t end) {
      for (uint64_t u = begin; u < end; ++u) {
        int64_t od = 0, os = 0;
        uint64_t rest = u / strips;
        for (size_t a = batch.size(); a-- > 0;) {
          const auto i = static_cast<int64_t>(rest % batch[a]);
          rest /= batch[a];
          od += i * batch_strides[0][a];
          os += i * batch_strides[1][a];
        }
        const uint64_t i0 = (u % strips) * kTile;
        const auto ni = static_cast<int64_t>(std::min(kTile, rows - i0));
        od += static_cast<int64_t>(i0) * dk;
        os += static_cast<int64_t>(i0);
        for (uint64_t j0 = 0; j0 < cols; j0 += kTile) {
          const auto nj = static_cast<int64_t>(std::min(kTile, cols - j0));
          const U* from = src + os + static_cast<int64_t>(j0) * si;
          U* to = dst + od + static_cast<int64_t>(j0) * di;
          for (int64_t i = 0; i < ni; ++i) {
            for (int64_t j = 0; j < nj; ++j) to[i * dk + j * di] = from[i + j * si];
          }
        }
      }
    });
    return 0;
  });
  return true;
}

}  // namespace

std::shared_ptr<const Kernel> K(ComputeFn fn) { return std::make_shared<FnKernel>(std::move(fn)); }

std::vector<OperandValue> One(Tensor t) {
  std::vector<OperandValue> r(1);
  r[0].data = std::move(t);
  return r;
}

int64_t ElemBytes(DataType t) { return static_cast<int64_t>(ElementSize(t)); }

// The first byte of element 0 of view `t`.
std::byte* BytesOf(const Tensor& t) {
  return t.buffer()->data() + t.offset() * ElemBytes(t.dtype());
}

// n elements of `es` bytes: dst[i * ds] = src[i * ss] (steps in elements; step 0 repeats).
void CopyRun(const std::byte* src, int64_t ss, std::byte* dst, int64_t ds, uint64_t n, int64_t es) {
  if (n == 0) return;
  if (ss == 1 && ds == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * static_cast<size_t>(es));
    return;
  }
  DispatchSize(es, [&]<typename U>() {
    const U* s = reinterpret_cast<const U*>(src);
    U* d = reinterpret_cast<U*>(dst);
    if (ss == 0 && ds == 1) {
      std::fill(d, d + n, *s);
      return 0;
    }
    for (uint64_t i = 0; i < n; ++i) {
      d[static_cast<int64_t>(i) * ds] = s[static_cast<int64_t>(i) * ss];
    }
    return 0;
  });
}

// Runs fn(begin, end) over [0, units) on the pool, `unit_elements` elements per unit.
void Parallel(const Config& config, uint64_t units, uint64_t unit_elements,
              const std::function<void(uint64_t, uint64_t)>& fn) {
  if (units == 0) return;
  const uint64_t grain =
      std::max<uint64_t>(1, kTaskElements / std::max<uint64_t>(1, unit_elements));
  config.pool->ParallelFor(static_cast<size_t>(units), static_cast<size_t>(grain),
                           [&](size_t b, size_t e) { fn(b, e); });
}

// Copies view `src` into the elements at byte address `dst` with element strides `dst_strides`
// (over src's shape).
void CopyView(const Tensor& src, std::byte* dst, const Strides& dst_strides, const Config& config) {
  const int64_t es = ElemBytes(src.dtype());
  const RowPlan<2> plan = MakeRowPlan<2>(src.shape(), {dst_strides, src.strides()});
  const std::byte* s = BytesOf(src);
  if (TiledCopy(plan, s, dst, es, config)) return;
  ForEachChunk(plan, config, [&](const std::array<int64_t, 2>& off, uint64_t, uint64_t n) {
    CopyRun(s + off[1] * es, plan.inner_stride[1], dst + off[0] * es, plan.inner_stride[0], n, es);
  });
}

// `t` itself when contiguous, else a dense copy made on the pool.
Tensor Dense(const Tensor& t, const Config& config) {
  if (t.IsContiguous()) return t;
  Tensor out = Tensor::Allocate(t.dtype(), t.shape());
  CopyView(t, BytesOf(out), ContiguousStrides(t.shape()), config);
  return out;
}

uint64_t Product(const Shape& s, size_t begin, size_t end) {
  uint64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

}  // namespace nnref::simd
