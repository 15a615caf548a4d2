# The backend list. A backend (kernel set) is one folder named in NNREF_BACKEND_DIRS (top
# CMakeLists.txt); its CMakeLists.txt builds its library and declares it with nnref_backend().
# The declarations drive everything a backend needs outside its folder:
#   - the runner links TARGET and lists REGISTRATION (a C++ function in the folder returning
#     `const nnref::BackendRegistration&`, ops/backend.h) in its generated backend_list.cc, which
#     gives `--backend NAME`, the names in --help and errors, and `nnref devices`;
#   - cases/CMakeLists.txt registers the corpus on it: one CTest test per case file of
#     CORPUS_GROUPS (default: every case folder), `nnref run CORPUS_ARGS FILE`, named
#     CORPUS_PREFIX.<file> (default NAME), labelled CORPUS_LABELS (default: the case folder) and
#     run with CORPUS_ENVIRONMENT; with CORPUS_WPT also NAME.corpus.wpt, the whole corpus under
#     --tolerances wpt (slow);
#   - cmake/install.cmake installs the folder's headers only with INSTALL (the reference's: the
#     C++ API computes with it; the other backends stay out of the installed package).
# docs/adding-an-operator.md#adding-a-backend walks through adding one.

# nnref_backend(NAME TARGET target REGISTRATION function [INSTALL] [CORPUS_WPT]
#               [CORPUS_PREFIX prefix] [CORPUS_ARGS args...] [CORPUS_GROUPS folders...]
#               [CORPUS_LABELS labels...] [CORPUS_ENVIRONMENT VAR=value...])
function(nnref_backend name)
  cmake_parse_arguments(B "INSTALL;CORPUS_WPT" "TARGET;REGISTRATION;CORPUS_PREFIX"
                        "CORPUS_ARGS;CORPUS_GROUPS;CORPUS_LABELS;CORPUS_ENVIRONMENT" ${ARGN})
  if(NOT B_TARGET OR NOT B_REGISTRATION)
    message(FATAL_ERROR "nnref_backend(${name}): TARGET and REGISTRATION are required")
  endif()
  get_property(names GLOBAL PROPERTY NNREF_BACKENDS)
  if(name IN_LIST names)
    message(FATAL_ERROR "nnref_backend(${name}): a backend of this name is already declared")
  endif()
  if(NOT B_CORPUS_PREFIX)
    set(B_CORPUS_PREFIX ${name})
  endif()
  file(RELATIVE_PATH dir ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  set_property(GLOBAL APPEND PROPERTY NNREF_BACKENDS ${name})
  foreach(key TARGET REGISTRATION CORPUS_PREFIX CORPUS_ARGS CORPUS_GROUPS CORPUS_LABELS
              CORPUS_ENVIRONMENT INSTALL CORPUS_WPT)
    set_property(GLOBAL PROPERTY NNREF_BACKEND_${name}_${key} "${B_${key}}")
  endforeach()
  set_property(GLOBAL PROPERTY NNREF_BACKEND_${name}_DIR ${dir})
endfunction()

# nnref_backend_get(NAME KEY var): a value nnref_backend() recorded (KEY as its argument, or DIR:
# the folder relative to the source tree).
function(nnref_backend_get name key var)
  get_property(value GLOBAL PROPERTY NNREF_BACKEND_${name}_${key})
  set(${var} "${value}" PARENT_SCOPE)
endfunction()
