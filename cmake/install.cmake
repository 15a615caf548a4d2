# `cmake --install`: the nnref tool, the C++ library API (runner/api/webnn.h, runner/api/verdict.h
# and the headers they include) with its static libraries, and a package config so that another project's
# find_package(nnref) gives the target nnref::api (docs/embedding.md, tests/install/check.sh).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NNREF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/nnref)
set_target_properties(nnref_numerics PROPERTIES EXPORT_NAME numerics)
set_target_properties(nnref_ref PROPERTIES EXPORT_NAME ref)
set_target_properties(nnref_ops PROPERTIES EXPORT_NAME ops)
set_target_properties(nnref_api PROPERTIES EXPORT_NAME api)
set_target_properties(nnref_verdict PROPERTIES EXPORT_NAME verdict)

install(TARGETS nnref RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS nnref_numerics nnref_ref nnref_ops nnref_api nnref_verdict EXPORT nnrefTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Headers keep their paths under include/nnref ("runner/api/webnn.h", "ops/...", ...). Of the
# backend folders (cmake/backends.cmake) only those declared INSTALL (the reference) are part of
# the package: the others' subfolders are left out.
set(NNREF_INSTALL_EXCLUDES)
get_property(NNREF_BACKEND_NAMES GLOBAL PROPERTY NNREF_BACKENDS)
foreach(backend ${NNREF_BACKEND_NAMES})
  nnref_backend_get(${backend} INSTALL install)
  nnref_backend_get(${backend} DIR dir)
  if(NOT install)
    list(APPEND NNREF_INSTALL_EXCLUDES REGEX "/${dir}(/.*)?$" EXCLUDE)
  endif()
endforeach()
foreach(dir numerics ref ops)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nnref/${dir}
          FILES_MATCHING PATTERN "*.h" PATTERN "*.inc" ${NNREF_INSTALL_EXCLUDES})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/runner/api/webnn.h ${PROJECT_SOURCE_DIR}/runner/api/verdict.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nnref/runner/api)
# runner/api/verdict.h (nnref::verdict) includes these two.
install(FILES ${PROJECT_SOURCE_DIR}/runner/compare.h ${PROJECT_SOURCE_DIR}/runner/derived.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nnref/runner)

install(EXPORT nnrefTargets NAMESPACE nnref:: DESTINATION ${NNREF_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/nnrefConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/nnrefConfig.cmake
                              INSTALL_DESTINATION ${NNREF_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/nnrefConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/nnrefConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/nnrefConfigVersion.cmake
        DESTINATION ${NNREF_CMAKE_DIR})
