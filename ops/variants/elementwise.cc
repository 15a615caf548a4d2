// Placeholder: filled in by the element-wise family work.
#include "ops/variants/variants.h"
namespace nnref {
void AddElementwiseAlternatives(std::vector<Alternative>&) {}
}  // namespace nnref
