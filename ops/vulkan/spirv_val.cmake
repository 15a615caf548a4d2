# cmake -DSPIRV_VAL=... -DSPVS="a.spv;b.spv" -P spirv_val.cmake: spirv-val every module.
foreach(spv ${SPVS})
  execute_process(COMMAND ${SPIRV_VAL} --target-env vulkan1.2 ${spv} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "spirv-val --target-env vulkan1.2 ${spv} failed")
  endif()
  message(STATUS "spirv-val ok: ${spv}")
endforeach()
