// NNEF operator group: multilinear_upsample (NNEF 1.0.2 4.3.4) and the region-of-interest
// operations avg_roi_pool, max_roi_pool and roi_resample (4.6), which WebNN has no operator for
// (WebNN resample2d covers multilinear_upsample only for rank 4, 'symmetric' and 'replicate').
//
// Numerics (docs/numerics.md): interpolation weights are exact integers over a common denominator
// for multilinear_upsample and doubles for roi_resample; the weighted terms are added exactly
// (products split with fma) in WindowSum, rounded to odd, then once to float32. avg_roi_pool
// divides its window sum with one rounding to odd; max_roi_pool selects exactly.
// Readings of the chapter are in docs/nnef-execution.md. A batch index outside the batch or a
// non-finite RoI coordinate is an OperationError at compute time.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ops/nnef_window.h"

namespace nnref::nnef {

enum class UpsampleMethod : uint8_t { kSymmetric, kAsymmetric, kAligned };
std::optional<UpsampleMethod> ParseUpsampleMethod(std::string_view name);

struct UpsampleAttributes : OpAttributes {
  std::vector<int64_t> factors;  // one per spatial axis (input axes 2..), positive
  UpsampleMethod method = UpsampleMethod::kSymmetric;
  Border border = Border::kReplicate;  // not 'ignore'
};
// multilinear_upsample: output extent = input extent x factor on the spatial axes.
Operand NnefMultilinearUpsample(GraphBuilder& builder, const Operand& input,
                                const UpsampleAttributes& attributes);

struct RoiAttributes : OpAttributes {
  std::vector<int64_t> output_size;  // one per spatial axis, positive
  bool max = false;                  // roi pools: max_roi_pool (else avg_roi_pool)
  UpsampleMethod method = UpsampleMethod::kSymmetric;  // roi_resample
};
// avg_roi_pool / max_roi_pool (input [b, c, spatial...], rois [N, 2m] float32, batch_index
// int64 with N items) -> [N, c, output_size...].
Operand NnefRoiPool(GraphBuilder& builder, const Operand& input, const Operand& rois,
                    const Operand& batch_index, const RoiAttributes& attributes);
Operand NnefRoiResample(GraphBuilder& builder, const Operand& input, const Operand& rois,
                        const Operand& batch_index, const RoiAttributes& attributes);

}  // namespace nnref::nnef
