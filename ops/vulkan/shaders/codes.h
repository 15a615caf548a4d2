// Codes shared by the C++ side (ops/vulkan/elementwise.cc) and the GLSL shaders: plain #defines,
// valid in both languages. Data type codes are nnref::DataType's values (numerics/dtype.h).
#ifndef NNREF_OPS_VULKAN_SHADERS_CODES_H_
#define NNREF_OPS_VULKAN_SHADERS_CODES_H_

#define NNVK_F32 0
#define NNVK_F16 1
#define NNVK_I32 2
#define NNVK_U32 3
#define NNVK_I64 4
#define NNVK_U64 5
#define NNVK_I8 6
#define NNVK_U8 7

// Operator kinds of elementwise.comp (params[0]).
#define NNVK_KIND_BINARY 0
#define NNVK_KIND_UNARY 1
#define NNVK_KIND_LOGICAL 2
#define NNVK_KIND_CAST 3
#define NNVK_KIND_CLAMP 4
#define NNVK_KIND_WHERE 5
#define NNVK_KIND_QUANTIZE 6    // NNVK_INT64 variant only
#define NNVK_KIND_DEQUANTIZE 7  // NNVK_INT64 variant only

// Binary operators (params[1]).
#define NNVK_ADD 0
#define NNVK_SUB 1
#define NNVK_MUL 2
#define NNVK_DIV 3
#define NNVK_MAX 4
#define NNVK_MIN 5
#define NNVK_POW 6
#define NNVK_PRELU 7

// Unary operators and activations (params[1]).
#define NNVK_ABS 0
#define NNVK_CEIL 1
#define NNVK_COS 2
#define NNVK_ERF 3
#define NNVK_EXP 4
#define NNVK_FLOOR 5
#define NNVK_IDENTITY 6
#define NNVK_LOG 7
#define NNVK_NEG 8
#define NNVK_RECIPROCAL 9
#define NNVK_ROUND_EVEN 10
#define NNVK_SIN 11
#define NNVK_SIGN 12
#define NNVK_SQRT 13
#define NNVK_TAN 14
#define NNVK_ELU 15
#define NNVK_GELU 16
#define NNVK_HARD_SIGMOID 17
#define NNVK_HARD_SWISH 18
#define NNVK_LEAKY_RELU 19
#define NNVK_RELU 20
#define NNVK_SIGMOID 21
#define NNVK_SOFTPLUS 22
#define NNVK_SOFTSIGN 23
#define NNVK_TANH 24
#define NNVK_LINEAR 25

// Logical operators (params[1]).
#define NNVK_EQUAL 0
#define NNVK_NOT_EQUAL 1
#define NNVK_GREATER 2
#define NNVK_GREATER_OR_EQUAL 3
#define NNVK_LESSER 4
#define NNVK_LESSER_OR_EQUAL 5
#define NNVK_LOGICAL_NOT 6
#define NNVK_LOGICAL_AND 7
#define NNVK_LOGICAL_OR 8
#define NNVK_LOGICAL_XOR 9
#define NNVK_IS_NAN 10
#define NNVK_IS_INFINITE 11

// elementwise.comp's specialization constants 0 (kind) and 1 (code) when not specialized: both
// read from the parameters.
#define NNVK_SPEC_GENERIC 0xffffffffu

#endif  // NNREF_OPS_VULKAN_SHADERS_CODES_H_
