#include "ref/tensor/tensor.h"

#include <doctest/doctest.h>

namespace nnref {

namespace {
Tensor Iota(const Shape& shape) {
  Tensor t = Tensor::Allocate(DataType::kInt32, shape);
  for (uint64_t i = 0; i < t.element_count(); ++i) t.base<int32_t>()[i] = static_cast<int32_t>(i);
  return t;
}
}  // namespace

TEST_CASE("contiguous strides are row-major") {
  CHECK(ContiguousStrides({2, 3, 4}) == Strides{12, 4, 1});
  CHECK(ContiguousStrides({}) == Strides{});
}

TEST_CASE("broadcast view shares the buffer and uses stride 0") {
  const Tensor t = Iota({3});
  const Tensor b = t.BroadcastTo({2, 3});
  CHECK(b.buffer() == t.buffer());
  CHECK(b.strides() == Strides{0, 1});
  CHECK_FALSE(b.IsContiguous());
  // Row-major values of the broadcast view: 0 1 2 0 1 2.
  const int32_t expected[] = {0, 1, 2, 0, 1, 2};
  for (uint64_t i = 0; i < 6; ++i) CHECK(b.At<int32_t>(i) == expected[i]);
  const Tensor c = b.Contiguous();
  CHECK(c.buffer() != t.buffer());
  for (uint64_t i = 0; i < 6; ++i) CHECK(c.base<int32_t>()[i] == expected[i]);
}

TEST_CASE("size-1 axes broadcast in the middle") {
  const Tensor t = Iota({2, 1, 3});
  const Tensor b = t.BroadcastTo({2, 4, 3});
  CHECK(b.strides() == Strides{3, 0, 1});
  CHECK(b.At<int32_t>(4 * 3 + 2) == 5);  // element [1, 0, 2] of the source
}

TEST_CASE("ForEachOffsets visits row-major with several cursors") {
  const Shape shape{2, 3};
  const Strides a{3, 1}, b{0, 1}, c{1, 2};  // dense, broadcast rows, transposed [3,2] storage
  std::vector<std::array<int64_t, 3>> seen;
  ForEachOffsets<3>(shape, {&a, &b, &c},
                    [&](const std::array<int64_t, 3>& o) { seen.push_back(o); });
  REQUIRE(seen.size() == 6);
  CHECK(seen[0] == std::array<int64_t, 3>{0, 0, 0});
  CHECK(seen[2] == std::array<int64_t, 3>{2, 2, 4});
  CHECK(seen[3] == std::array<int64_t, 3>{3, 0, 1});
  CHECK(seen[5] == std::array<int64_t, 3>{5, 2, 5});
}

TEST_CASE("rank-0 iteration visits one element") {
  int calls = 0;
  const Strides none;
  ForEachOffsets<1>({}, {&none}, [&](const std::array<int64_t, 1>& o) {
    CHECK(o[0] == 0);
    ++calls;
  });
  CHECK(calls == 1);
}


TEST_CASE("permute, slice and reverse are views over the same buffer") {
  Tensor t = Tensor::Allocate(DataType::kInt32, {2, 3, 4});
  for (int i = 0; i < 24; ++i) t.base<int32_t>()[i] = i;
  const Tensor p = t.Permute({2, 0, 1});
  CHECK(p.buffer() == t.buffer());
  CHECK(p.shape() == Shape{4, 2, 3});
  CHECK(p.strides() == Strides{1, 12, 4});
  CHECK(p.At<int32_t>(1 * 6 + 1 * 3 + 2) == 12 + 8 + 1);  // [1][1][2] -> t[1][2][1]
  const Tensor s = t.Slice({1, 0, 1}, {1, 2, 2}, {1, 2, 2});
  CHECK(s.buffer() == t.buffer());
  CHECK(s.offset() == 12 + 1);
  CHECK(s.strides() == Strides{12, 8, 2});
  CHECK(s.At<int32_t>(3) == 12 + 8 + 3);  // [0][1][1] -> t[1][2][3]
  const Tensor r = t.Reverse({0, 2});
  CHECK(r.buffer() == t.buffer());
  CHECK(r.offset() == 12 + 3);
  CHECK(r.strides() == Strides{-12, 4, -1});
  CHECK(r.At<int32_t>(0) == 15);  // t[1][0][3]
  CHECK(r.Contiguous().At<int32_t>(23) == 8);  // [1][2][3] -> t[0][2][0]
  const Tensor v = t.Reshape({6, 4});
  CHECK(v.buffer() == t.buffer());
  const Tensor c = p.Reshape({24});
  CHECK(c.buffer() != t.buffer());
  CHECK(c.At<int32_t>(1) == 4);  // p[0][0][1] -> t[0][1][0]
}

}  // namespace nnref
