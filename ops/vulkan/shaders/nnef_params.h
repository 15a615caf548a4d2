// nnef.comp (the NNEF operator group on the vulkan backend, ops/vulkan/nnef.cc): modes and the
// params layout (uint words), for both languages as params.h's layouts are. Binding 1 is the input
// x, binding 2 the host-built tap table (int32 per output and tap: >= 0 the element of x it reads,
// NNVK_NNEF_ZERO a constant border position that reads 0, NNVK_NNEF_SKIP a position that takes no
// part), binding 3 the mode's auxiliary words (below).
#ifndef NNREF_OPS_VULKAN_SHADERS_NNEF_PARAMS_H_
#define NNREF_OPS_VULKAN_SHADERS_NNEF_PARAMS_H_

#define NNVK_NNEF_ZERO -1
#define NNVK_NNEF_SKIP -2

#define NNVK_NNEF_SUM 0  // compensated sum of the taps; with FLAG, divided by aux[i] (float; 0: 0)
#define NNVK_NNEF_WEIGHTED 1  // compensated sum of x * aux[i * taps + k] (float), divided by VALUE
#define NNVK_NNEF_MAX 2       // the first largest tap's value (no tap: 0)
#define NNVK_NNEF_ARGMAX 3    // the first largest tap's number k (int64)
#define NNVK_NNEF_ARGMIN 4    // the first smallest tap's number k (int64)
#define NNVK_NNEF_SELECT 5    // tap aux[i] (int64) with FLAG, else tap 0; a ZERO tap reads VALUE
#define NNVK_NNEF_DESAMPLE 6  // compensated sum of the taps k whose x element has aux index k
#define NNVK_NNEF_ALL 7       // uint8 taps, uint8 result
#define NNVK_NNEF_ANY 8
#define NNVK_NNEF_ROUND 9  // element-wise (no table): floor(x + 0.5)
#define NNVK_NNEF_ELU 10   // element-wise: x < 0 ? e^x - 1 : x
#define NNVK_NNEF_CONV 11  // conv/deconv: aux = filter [c_out][c_in / groups][taps], bias [c_out]

#define NNVK_NNEF_P_MODE 0
#define NNVK_NNEF_P_COUNT 1     // output elements
#define NNVK_NNEF_P_TAPS 2      // taps per output (conv: per output position)
#define NNVK_NNEF_P_OUT_TYPE 3  // NNVK_F32, NNVK_I64 or NNVK_U8
#define NNVK_NNEF_P_FLAG 4
#define NNVK_NNEF_P_VALUE 5        // float bits
#define NNVK_NNEF_P_IPG 6          // conv: input channels per group
#define NNVK_NNEF_P_OPG 7          // conv: output channels per group
#define NNVK_NNEF_P_COUT 8         // conv: output channels
#define NNVK_NNEF_P_SPATIAL 9      // conv: output positions per channel
#define NNVK_NNEF_P_IN_SPATIAL 10  // conv: input positions per channel
#define NNVK_NNEF_P_CIN 11         // conv: input channels
#define NNVK_NNEF_P_WORDS 12

// nnef_quantize.comp (the graph.quant quantization, double arithmetic: shaderFloat64): the
// algorithm (NNVK_NNEF_Q_*), the element count, then doubles as two words each (low word first),
// computed on the host as the reference computes them (ops/nnef_quantize.cc).
#define NNVK_NNEF_Q_LINEAR 0       // linear_quantize and min_max_linear_quantize
#define NNVK_NNEF_Q_LOGARITHMIC 1  // logarithmic_quantize
#define NNVK_NNEF_Q_ZERO_POINT 2   // zero_point_linear_quantize
#define NNVK_NNEF_QP_KIND 0
#define NNVK_NNEF_QP_COUNT 1
#define NNVK_NNEF_QP_MIN 2     // linear: min; zero point: the smallest code; logarithmic: m - r
#define NNVK_NNEF_QP_MAX 4     // linear: max; zero point: the largest code; logarithmic: m
#define NNVK_NNEF_QP_WIDTH 6   // linear: max - min; zero point: the scale
#define NNVK_NNEF_QP_LEVELS 8  // linear: r; zero point: the zero point
#define NNVK_NNEF_QP_WORDS 10

#endif  // NNREF_OPS_VULKAN_SHADERS_NNEF_PARAMS_H_
