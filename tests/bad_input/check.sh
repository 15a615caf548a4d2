#!/usr/bin/env bash
# Each malformed file must make `nnref run` exit 2 with one clear message naming the file, the case
# and the field. Usage: check.sh path/to/nnref
set -uo pipefail
nnref=$1
cd "$(dirname "$0")"
status=0
expect() {  # file, then substrings the output must contain
  local file=$1; shift
  local out rc
  out=$(timeout 20 "$nnref" run "$file" 2>&1); rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL $file: exit $rc (want 2)"; echo "$out"; status=1; return; fi
  for s in "$file" "$@"; do
    if ! grep -qF -- "$s" <<<"$out"; then echo "FAIL $file: output lacks '$s'"; echo "$out"; status=1; return; fi
  done
  echo "ok   $file"
}
expect malformed.json "malformed JSON at line 1, column"
expect unknown_op.json "case 'unknown op case'" "graph.operators[0]" "unknown operator 'conv3d'"
expect wrong_arg_count.json "case 'too many args'" "takes at most 3 arguments" "extra"
expect wrong_arg_type.json "case 'number where operand'" "argument 'b' must name an operand"
expect data_length.json "case 'short data'" "graph.inputs.a.data" "has 3 values but shape [2] needs 2"
expect unknown_dtype.json "case 'float64 input'" "descriptor.dataType" "unknown data type 'float64'"
expect dangling.json "case 'dangling name'" "names 'nowhere'"
expect hostile_shape.json "case 'huge constant'" "not a valid dimension"
expect hostile_bytes.json "case 'three gigabytes'" "byte length"
expect missing_graph.json "case 'no graph here'" "missing 'graph'"
expect bad_value.json "case 'bad value'" "graph.inputs.a.data[1]" "'one' is not a number"
expect npy_missing.json "case 'missing npy'" "cannot open npy file"
expect npy_truncated.json "case 'truncated npy'" "is truncated"
expect deep.json "nested deeper than 200 levels"
expect hostile_broadcast.json "case 'broadcast to 2^32 elements'" "add output: element count"
expect timeline_unknown_step.json "case 'unknown step'" "timeline[1].step" "unknown step 'compute'"
expect timeline_unknown_tensor.json "case 'unknown tensor'" "timeline[1] (writeTensor).tensor" "no tensor named 'nope'"
expect timeline_bad_buffer_type.json "case 'bad buffer type'" "timeline[1] (writeTensor).bufferType"
expect timeline_hostile_buffer.json "case 'petabyte buffer'" "timeline[1] (writeTensor).byteLength" "too large"
expect timeline_bad_data.json "case 'bad data'" "timeline[1] (writeTensor).data[1]" "'two' is not an integer"
expect timeline_unknown_builder.json "case 'unknown builder'" "timeline[1] (operator).builder" "no builder named 'nope'"
expect timeline_unknown_operand.json "case 'unknown operand'" "timeline[2] (build).outputs.y" "no operand named 'nope'"
expect timeline_constant_two_forms.json "case 'constant with two forms'" "timeline[1] (constant)" "give one form"
expect timeline_unknown_buffer.json "case 'unknown buffer'" "timeline[1] (writeTensor).buffer" "no buffer named 'nobuf'"
expect timeline_misaligned_view.json "case 'misaligned view'" "timeline[2] (readTensor).outputData.byteOffset" "multiple of 4"
expect timeline_view_too_long.json "case 'view too long'" "timeline[2] (writeTensor).length" "do not fit the buffer's 16 bytes"
expect timeline_data_and_buffer.json "case 'data and buffer'" "timeline[2] (writeTensor)" "either 'data' or 'buffer'"
expect timeline_detach_shared.json "case 'detach shared'" "timeline[1] (detachBuffer).buffer" "cannot be detached"
expect timeline_bad_error_how.json "case 'bad how'" "timeline[1] (writeTensor).expectedError.how" "\"thrown\""
expect timeline_check_buffer_length.json "case 'check buffer length'" "timeline[1] (checkBuffer).expected" "holds 3 elements but the view has 2"
exit $status
