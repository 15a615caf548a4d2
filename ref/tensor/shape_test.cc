#include "ref/tensor/shape.h"

#include <doctest/doctest.h>

namespace nnref {

// Examples from WebNN §algorithms-broadcasting prose.
TEST_CASE("unidirectional broadcasting: spec examples") {
  CHECK(BroadcastUnidirectional({4}, {5, 4}) == Shape{5, 4});
  CHECK(BroadcastUnidirectional({1}, {5, 4}) == Shape{5, 4});
  CHECK_FALSE(BroadcastUnidirectional({5, 4}, {4}));     // from has higher rank
  CHECK_FALSE(BroadcastUnidirectional({2, 4}, {5, 4}));  // 2 vs 5
  CHECK_FALSE(BroadcastUnidirectional({5, 4}, {1, 4}));  // unidirectional: 'to' never stretches
}

TEST_CASE("bidirectional broadcasting: spec examples") {
  CHECK(BroadcastBidirectional({5, 1}, {1, 6}) == Shape{5, 6});
  CHECK(BroadcastBidirectional({}, {2, 3}) == Shape{2, 3});
  CHECK(BroadcastBidirectional({2, 1, 3}, {4, 1}) == Shape{2, 4, 3});
  CHECK_FALSE(BroadcastBidirectional({2, 3}, {3, 2}));
}

TEST_CASE("blockwise broadcasting: spec examples") {
  CHECK(BlockwiseBroadcastable({4, 5}, {16, 10}));
  CHECK_FALSE(BlockwiseBroadcastable({4, 5}, {9, 3}));
  CHECK_FALSE(BlockwiseBroadcastable({4}, {4, 4}));  // ranks differ
}

TEST_CASE("element count overflow is detected") {
  CHECK(CheckedElementCount({2, 3, 4}) == 24u);
  CHECK(CheckedElementCount({}) == 1u);
  CHECK_FALSE(CheckedElementCount({uint64_t{1} << 32, uint64_t{1} << 32}));
  CHECK(ShapeToString({2, 3}) == "[2, 3]");
}

}  // namespace nnref
