// The parameter layouts of the shaders: binding 0 of every shader is an array of uint words
// (`params` on the C++ side, `p` in GLSL), and this file says which word holds what, once, for
// both sides. The shaders include it (glslc resolves the include beside them) and the C++ files
// that fill the words include it as "ops/vulkan/shaders/params.h": plain #defines, valid in both
// languages, so a slot number cannot drift between them. Each layout is prefixed by its shader;
// a *_WORDS define gives the size of a layout of fixed length; codes a word may hold follow it.
#ifndef NNREF_OPS_VULKAN_SHADERS_PARAMS_H_
#define NNREF_OPS_VULKAN_SHADERS_PARAMS_H_

// elementwise.comp params layout (uint words): kind, code, output type, three input types,
// element count, rank, alpha bits, beta bits, clamp min (2 words), clamp max (2 words), native
// (1 in the native arithmetic mode: log is the GLSL builtin), 1 spare;
// then shape[rank], the element strides of inputs 0, 1, 2 (rank words each) and their block sizes
// (rank words each): input k's element along an axis is coordinate / block (1 for an axis of the
// output's size, the output's size for a broadcast axis, the block length for quantizeLinear's
// blockwise broadcasting).
#define NNVK_P_KIND 0
#define NNVK_P_CODE 1
#define NNVK_P_OUT_TYPE 2
#define NNVK_P_IN_TYPE 3
#define NNVK_P_COUNT 6
#define NNVK_P_RANK 7
#define NNVK_P_ALPHA 8
#define NNVK_P_BETA 9
#define NNVK_P_MIN 10
#define NNVK_P_MAX 12
#define NNVK_P_NATIVE 14
#define NNVK_P_SHAPE 16

// rnn.comp: modes (params[NNVK_RNN_P_MODE]), the offset of an absent optional operand, and the
// params layout (uint words; activations are NNVK_RELU, NNVK_SIGMOID or NNVK_TANH).
#define NNVK_RNN_GRU 0
#define NNVK_RNN_GRU_RESET 1  // gru without resetAfter: r * h first
#define NNVK_RNN_LSTM 2
#define NNVK_RNN_ABSENT 0xffffffffu
#define NNVK_RNN_P_TYPE 0
#define NNVK_RNN_P_BATCH 1
#define NNVK_RNN_P_INPUT 2
#define NNVK_RNN_P_HIDDEN 3
#define NNVK_RNN_P_MODE 4
#define NNVK_RNN_P_RESET_AFTER 5  // gru
#define NNVK_RNN_P_ACT0 6         // gru: z and r gates; lstm: i, o, f gates
#define NNVK_RNN_P_ACT1 7         // gru: new gate; lstm: cell gate g
#define NNVK_RNN_P_ACT2 8         // lstm: the filter of the new cell state
#define NNVK_RNN_P_W 9            // element offsets of the operands in in1
#define NNVK_RNN_P_R 10
#define NNVK_RNN_P_B 11
#define NNVK_RNN_P_RB 12
#define NNVK_RNN_P_PEEP 13
#define NNVK_RNN_P_ROWS 14  // 4 words: gate row offsets, gru z, r, n; lstm i, o, f, g
#define NNVK_RNN_P_C 18     // element offset of c in in2 (lstm)
#define NNVK_RNN_P_RH 19    // element offset of r * h in in2 (gru without resetAfter)
#define NNVK_RNN_P_X 20     // element offset of the step's rows x_t in in0
#define NNVK_RNN_P_COUNT 21

// The tiled GEMM's variant (gemm_tile.glsl, matmul_native.comp and conv2d_native.comp), their
// specialization constant 0: NNVK_GEMM_TILED stages tiles in shared memory (GPUs),
// NNVK_GEMM_DIRECT reads vec4s from global memory into register blocks (CPU devices such as
// lavapipe; docs/vulkan.md#arithmetic-modes).
#define NNVK_GEMM_TILED 0
#define NNVK_GEMM_DIRECT 1
// The direct variant's register block: NNVK_DIRECT_ROWS rows per subgroup (a multiple of 8),
// NNVK_DIRECT_VEC4S vec4s of columns per invocation; the host sizes its dispatch by them.
#define NNVK_DIRECT_ROWS 16u
#define NNVK_DIRECT_VEC4S 2u

// matmul.comp (matmul and gemm, ops/vulkan/matmul_gemm.cc). A is read at element
// offset + m * A_M + k * A_K, B at offset + k * B_K + n * B_N (strides give gemm's transposes),
// c (gemm, HAS_C) at m * C_M + n * C_N (0 on a broadcast axis).
#define NNVK_MATMUL_P_TYPE 0
#define NNVK_MATMUL_P_M 1
#define NNVK_MATMUL_P_N 2
#define NNVK_MATMUL_P_K 3
#define NNVK_MATMUL_P_BATCHES 4
#define NNVK_MATMUL_P_A_M 5
#define NNVK_MATMUL_P_A_K 6
#define NNVK_MATMUL_P_B_K 7
#define NNVK_MATMUL_P_B_N 8
#define NNVK_MATMUL_P_HAS_C 9
#define NNVK_MATMUL_P_C_M 10
#define NNVK_MATMUL_P_C_N 11
#define NNVK_MATMUL_P_ALPHA 12  // float32 bits
#define NNVK_MATMUL_P_BETA 13   // float32 bits
#define NNVK_MATMUL_P_GEMM 14
#define NNVK_MATMUL_P_OFFSETS 16  // per output batch: the element offsets of its A and B (2 words)

// conv2d.comp (conv2d, ops/vulkan/conv2d.cc, and convTranspose2d in gather form,
// ops/vulkan/conv_transpose2d.cc).
#define NNVK_CONV_P_TYPE 0
#define NNVK_CONV_P_BATCHES 1
#define NNVK_CONV_P_IN_C 2
#define NNVK_CONV_P_IN_H 3
#define NNVK_CONV_P_IN_W 4
#define NNVK_CONV_P_OUT_C 5
#define NNVK_CONV_P_OUT_H 6
#define NNVK_CONV_P_OUT_W 7
#define NNVK_CONV_P_FILTER_C 8  // input channels per group
#define NNVK_CONV_P_KH 9
#define NNVK_CONV_P_KW 10
#define NNVK_CONV_P_PAD_TOP 11
#define NNVK_CONV_P_PAD_LEFT 12
#define NNVK_CONV_P_STRIDE_H 13
#define NNVK_CONV_P_STRIDE_W 14
#define NNVK_CONV_P_DIL_H 15
#define NNVK_CONV_P_DIL_W 16
#define NNVK_CONV_P_GROUPS 17
#define NNVK_CONV_P_HAS_BIAS 18
#define NNVK_CONV_P_OUT_NHWC 19
#define NNVK_CONV_P_IN_STRIDES 20      // 4 words: n, c, h, w
#define NNVK_CONV_P_FILTER_STRIDES 24  // 4 words: o, i, h, w
#define NNVK_CONV_P_TRANSPOSED 28
#define NNVK_CONV_P_FILTER_OUT_C 29  // convTranspose2d: output channels per group
#define NNVK_CONV_P_WORDS 30

// pool2d.comp (averagePool2d, l2Pool2d, maxPool2d, ops/vulkan/pool2d.cc).
#define NNVK_POOL_P_TYPE 0
#define NNVK_POOL_P_OP 1  // NNVK_POOL_AVERAGE, NNVK_POOL_L2, NNVK_POOL_MAX
#define NNVK_POOL_P_BATCHES 2
#define NNVK_POOL_P_CHANNELS 3
#define NNVK_POOL_P_IN_H 4
#define NNVK_POOL_P_IN_W 5
#define NNVK_POOL_P_OUT_H 6
#define NNVK_POOL_P_OUT_W 7
#define NNVK_POOL_P_WIN_H 8
#define NNVK_POOL_P_WIN_W 9
#define NNVK_POOL_P_PAD_TOP 10
#define NNVK_POOL_P_PAD_LEFT 11
#define NNVK_POOL_P_STRIDE_H 12
#define NNVK_POOL_P_STRIDE_W 13
#define NNVK_POOL_P_DIL_H 14
#define NNVK_POOL_P_DIL_W 15
#define NNVK_POOL_P_NHWC 16
#define NNVK_POOL_P_WORDS 17
#define NNVK_POOL_AVERAGE 0
#define NNVK_POOL_L2 1
#define NNVK_POOL_MAX 2

// resample.comp (resample2d, ops/vulkan/resample2d.cc).
#define NNVK_RESAMPLE_P_TYPE 0
#define NNVK_RESAMPLE_P_LINEAR 1
#define NNVK_RESAMPLE_P_COUNT 2
#define NNVK_RESAMPLE_P_AXIS_Y 3
#define NNVK_RESAMPLE_P_AXIS_X 4
#define NNVK_RESAMPLE_P_OUT 8       // 4 words: the output dimensions
#define NNVK_RESAMPLE_P_IN 12       // 4 words: the input dimensions
#define NNVK_RESAMPLE_P_STRIDES 16  // 4 words: the dense input strides
#define NNVK_RESAMPLE_P_WORDS 20

// reduce.comp (the reductions, softmax, the normalizations, argMin/argMax and cumulativeSum:
// ops/vulkan/reduction.cc, softmax.cc, normalization.cc, arg_cumulative.cc): each output element
// reduces one dense run of RUN input elements (or, for the operators with one output per input
// element, the run it lies in).
#define NNVK_REDUCE_P_TYPE 0
#define NNVK_REDUCE_P_OP 1  // NNVK_REDUCE_*
#define NNVK_REDUCE_P_RUN 2
#define NNVK_REDUCE_P_COUNT 3
#define NNVK_REDUCE_P_CUM_FLAGS 4  // cumulativeSum: NNVK_REDUCE_EXCLUSIVE | NNVK_REDUCE_REVERSED
#define NNVK_REDUCE_P_OUT_TYPE 7   // argMin/argMax: int32 or int64
// reduce_native.comp: 1 = one invocation per output (short runs), 0 = one workgroup per output.
#define NNVK_REDUCE_P_PER_INVOCATION 5
// NNVK_REDUCE_NORM: binding 2 holds float32 [scale, bias, mean, variance] (AUX values each).
#define NNVK_REDUCE_P_EPS 4    // float32 bits
#define NNVK_REDUCE_P_FLAGS 5  // NNVK_NORM_*
#define NNVK_REDUCE_P_AUX 6
#define NNVK_REDUCE_P_WORDS 8
// The operators (P_OP); 0..9 are ReduceOp's values (ops/reduction.h), in its order.
#define NNVK_REDUCE_L1 0u
#define NNVK_REDUCE_L2 1u
#define NNVK_REDUCE_LOG_SUM 2u
#define NNVK_REDUCE_LOG_SUM_EXP 3u
#define NNVK_REDUCE_MAX 4u
#define NNVK_REDUCE_MEAN 5u
#define NNVK_REDUCE_MIN 6u
#define NNVK_REDUCE_PRODUCT 7u
#define NNVK_REDUCE_SUM 8u
#define NNVK_REDUCE_SUM_SQUARE 9u
#define NNVK_REDUCE_SOFTMAX 10u  // softmax along the run: one output per input element
#define NNVK_REDUCE_NORM 11u     // batch/instance/layer normalization: one output per input element
#define NNVK_REDUCE_ARG_MIN 12u  // index of the first minimum (output type P_OUT_TYPE)
#define NNVK_REDUCE_ARG_MAX 13u
#define NNVK_REDUCE_CUMSUM 14u  // prefix sum along the run: one output per input element
#define NNVK_REDUCE_EXCLUSIVE 1u
#define NNVK_REDUCE_REVERSED 2u
#define NNVK_NORM_SCALE 1u       // a scale is given
#define NNVK_NORM_BIAS 2u        // a bias is given
#define NNVK_NORM_MEAN_VAR 4u    // mean and variance given (batchNormalization)
#define NNVK_NORM_AUX_INDEX 8u   // the parameters' index is (e / RUN) % AUX (instance)

// layout.comp (the data movement operators, ops/vulkan/data_movement.cc and
// data_movement_copy.cc).
#define NNVK_LAYOUT_P_TYPE 0
#define NNVK_LAYOUT_P_RANK 1
#define NNVK_LAYOUT_P_COUNT 2
#define NNVK_LAYOUT_P_PAD_MODE 3    // NNVK_PAD_*
#define NNVK_LAYOUT_P_VALUE 4       // two words: the constant's bits
#define NNVK_LAYOUT_P_TRIANGULAR 6  // NNVK_TRIANGULAR_*
#define NNVK_LAYOUT_P_DIAGONAL 7    // int
#define NNVK_LAYOUT_P_BASE 8        // element offset of the input
#define NNVK_LAYOUT_P_CONCAT 9      // concat: the input count (0: not concat)
#define NNVK_LAYOUT_P_INNER 10      // concat: the element count of the axes after its axis
#define NNVK_LAYOUT_P_AXES 12   // per output axis NNVK_LAYOUT_AXIS_WORDS words: out, in, stride
                                // (int), start, step, pad begin, flags (NNVK_AXIS_*); concat:
                                // the inputs' sizes along the axis
#define NNVK_LAYOUT_AXIS_WORDS 7u
#define NNVK_AXIS_REVERSE 1u
#define NNVK_AXIS_TILE 2u
#define NNVK_PAD_NONE 0u
#define NNVK_PAD_CONSTANT 1u
#define NNVK_PAD_EDGE 2u
#define NNVK_PAD_REFLECTION 3u
#define NNVK_TRIANGULAR_NONE 0u
#define NNVK_TRIANGULAR_UPPER 1u
#define NNVK_TRIANGULAR_LOWER 2u

// gather.comp (gather, gatherElements, gatherND: ops/vulkan/indexing.cc; scatterElements,
// scatterND: ops/vulkan/scatter.cc).
#define NNVK_GATHER_P_TYPE 0
#define NNVK_GATHER_P_MODE 1  // NNVK_GATHER_MODE_*
#define NNVK_GATHER_P_INDEX_TYPE 2
#define NNVK_GATHER_P_COUNT 3
#define NNVK_GATHER_P_N 4      // the indexed dimension (gather, elements); gatherND/scatterND: K
#define NNVK_GATHER_P_INNER 5  // elements after the axis (gather, elements); ND: the slice size
#define NNVK_GATHER_P_J 6      // gather: index count; elements: indices' size on the axis; ND:
                               // tuples
#define NNVK_GATHER_P_DIMS 8   // ND: the input's first K dimensions, then their dense strides
#define NNVK_GATHER_MODE_GATHER 0u
#define NNVK_GATHER_MODE_ELEMENTS 1u
#define NNVK_GATHER_MODE_ND 2u
#define NNVK_GATHER_MODE_SCATTER_ELEMENTS 3u
#define NNVK_GATHER_MODE_SCATTER_ND 4u

#endif  // NNREF_OPS_VULKAN_SHADERS_PARAMS_H_
