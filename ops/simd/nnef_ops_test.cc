// The simd backend's NNEF-group conv, deconv, box sums, debox, desample, pad (nnef_window.cc),
// round, elu and the reductions (nnef_elementwise.cc), quantize (nnef_quantize.cc) and the RoI
// operators (nnef_resample.cc): the hand-derived cases of ops/nnef_backend_cases.h, on 1 and 2
// threads.
#include "ops/nnef_backend_cases.h"
#include "ops/simd/simd_backend.h"

namespace nnref {

std::shared_ptr<const Backend> BackendUnderTest(unsigned threads) {
  return MakeSimdBackend({threads});
}

}  // namespace nnref
