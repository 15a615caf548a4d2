#include "ref/tensor/shape.h"

#include <algorithm>

namespace nnref {

std::optional<uint64_t> CheckedElementCount(const Shape& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) {
    if (d != 0 && n > UINT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return n;
}

uint64_t ElementCount(const Shape& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::optional<Shape> BroadcastUnidirectional(const Shape& from, const Shape& to) {
  // Steps 1-3.
  if (from.size() > to.size()) return std::nullopt;
  // Steps 4-5: prepend ones.
  Shape padded(to.size() - from.size(), 1);
  padded.insert(padded.end(), from.begin(), from.end());
  // Steps 6-8.
  Shape out;
  out.reserve(to.size());
  for (size_t i = 0; i < to.size(); ++i) {
    if (to[i] != padded[i] && padded[i] != 1) return std::nullopt;
    out.push_back(to[i]);
  }
  return out;
}

std::optional<Shape> BroadcastBidirectional(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape pa(n - a.size(), 1), pb(n - b.size(), 1);
  pa.insert(pa.end(), a.begin(), a.end());
  pb.insert(pb.end(), b.begin(), b.end());
  Shape out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (pa[i] != pb[i] && pa[i] != 1 && pb[i] != 1) return std::nullopt;
    out.push_back(std::max(pa[i], pb[i]));
  }
  return out;
}

bool BlockwiseBroadcastable(const Shape& from, const Shape& to) {
  if (from.size() != to.size()) return false;
  for (size_t i = 0; i < to.size(); ++i) {
    if (from[i] == 0 || to[i] % from[i] != 0) return false;
  }
  return true;
}

}  // namespace nnref
