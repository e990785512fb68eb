# Settings for building triton-aot itself (not for its users): warnings, sanitizers and the
# Python interpreter that has Triton.

set(TRITON_AOT_SANITIZE "" CACHE STRING "Build with a sanitizer: address, thread or empty")
set_property(CACHE TRITON_AOT_SANITIZE PROPERTY STRINGS "" address thread)

# Applies the project's warning and sanitizer flags to one of its own targets.
function(triton_aot_target_defaults target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
    $<$<COMPILE_LANG_AND_ID:C,GNU,Clang>:-Wall -Wextra -Wpedantic>)
  if(TRITON_AOT_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${TRITON_AOT_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=${TRITON_AOT_SANITIZE})
  endif()
endfunction()

# TRITON_AOT_FUZZ: every C and C++ file of the directory and below is built with libFuzzer's
# coverage instrumentation, AddressSanitizer and UBSan (a UB report stops the fuzzer); the fuzz
# targets add -fsanitize=fuzzer (libFuzzer's main) when they link. Needs clang.
macro(triton_aot_fuzz_flags)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TRITON_AOT_FUZZ needs clang (libFuzzer): configure with the `fuzz` "
                        "preset or -DCMAKE_CXX_COMPILER=clang++")
  endif()
  add_compile_options(
    "$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link,address,undefined>"
    "$<$<COMPILE_LANGUAGE:C,CXX>:-fno-sanitize-recover=undefined;-fno-omit-frame-pointer>")
  add_link_options(-fsanitize=address,undefined)
endmacro()

# The interpreter with Triton: TRITON_AOT_PYTHON if set, else the project's bootstrap venv,
# else python3 from PATH. It becomes the compiler's default --python.
if(NOT DEFINED TRITON_AOT_PYTHON)
  if(DEFINED ENV{TRITON_AOT_PYTHON})
    set(_tta_python "$ENV{TRITON_AOT_PYTHON}")
  elseif(EXISTS "${PROJECT_SOURCE_DIR}/.venv/bin/python")
    set(_tta_python "${PROJECT_SOURCE_DIR}/.venv/bin/python")
  else()
    find_program(_tta_python NAMES python3 python)
  endif()
  set(TRITON_AOT_PYTHON "${_tta_python}" CACHE FILEPATH "Python interpreter that has Triton")
endif()
execute_process(
  COMMAND "${TRITON_AOT_PYTHON}" -c "import triton; print(triton.__version__)"
  OUTPUT_VARIABLE _tta_triton_version OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET RESULT_VARIABLE _tta_rc)
if(_tta_rc EQUAL 0)
  message(STATUS "triton-aot: Triton ${_tta_triton_version} at ${TRITON_AOT_PYTHON}")
else()
  message(WARNING "triton-aot: ${TRITON_AOT_PYTHON} cannot import triton; the integration "
                  "tests will fail. Run tools/bootstrap.sh, or set TRITON_AOT_PYTHON to an "
                  "interpreter that has Triton 3.5 or newer.")
endif()
