// Slow test (label `slow`, minutes): Float16::FromFloat against g++'s (_Float16)float conversion
// (libgcc __truncsfhf2, round to nearest even) for all 2^32 float bit patterns. NaNs are compared
// by NaN-ness and sign.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "numerics/float16.h"

namespace nnref {
namespace {

// Hex text for failure messages (doctest's message builder ignores stream manipulators).
std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool IsNanBits(uint16_t b) { return (b & 0x7c00u) == 0x7c00u && (b & 0x03ffu) != 0; }

struct Slice {
  uint64_t mismatches = 0;
  uint64_t checked = 0;
  uint32_t first_bad = 0;
  uint16_t first_got = 0;
  uint16_t first_want = 0;
};

void CheckRange(uint64_t begin, uint64_t end, Slice* out) {
  Slice s;
  for (uint64_t i = begin; i < end; ++i) {
    const auto u = static_cast<uint32_t>(i);
    const float f = std::bit_cast<float>(u);
    const uint16_t want = std::bit_cast<uint16_t>(static_cast<_Float16>(f));
    const uint16_t got = Float16::FromFloat(f).bits;
    const bool ok =
        IsNanBits(want) ? (IsNanBits(got) && (got & 0x8000u) == (want & 0x8000u)) : got == want;
    ++s.checked;
    if (!ok && s.mismatches++ == 0) {
      s.first_bad = u;
      s.first_got = got;
      s.first_want = want;
    }
  }
  *out = s;
}

TEST_CASE("float16 exhaustive: Float16::FromFloat matches _Float16 for all 2^32 floats") {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  constexpr uint64_t kTotal = uint64_t{1} << 32;
  // Many small chunks handed out dynamically, so an uneven machine still finishes together.
  constexpr uint64_t kChunk = uint64_t{1} << 24;
  std::atomic<uint64_t> next{0};
  std::vector<Slice> results(static_cast<size_t>(kTotal / kChunk));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (uint64_t c; (c = next.fetch_add(1)) < kTotal / kChunk;) {
        CheckRange(c * kChunk, (c + 1) * kChunk, &results[static_cast<size_t>(c)]);
      }
    });
  }
  for (std::thread& th : pool) th.join();

  uint64_t mismatches = 0, checked = 0;
  for (const Slice& s : results) {
    checked += s.checked;
    if (s.mismatches != 0 && mismatches == 0) {
      FAIL_CHECK("first mismatch: float bits " << Hex(s.first_bad) << " -> " << Hex(s.first_got)
                                               << ", _Float16 gives " << Hex(s.first_want));
    }
    mismatches += s.mismatches;
  }
  CHECK(checked == kTotal);
  CHECK(mismatches == 0);
}

}  // namespace
}  // namespace nnref
