# Torch.cxx_runtime: triton_add_torch_library() refuses a C++ compiler that links its own
# runtime into shared libraries (torch could not catch the operators' errors: the process
# crashes on the first), naming the fix; the system's compiler passes.
#   cmake -DSOURCE=<this dir> -DWORK=<scratch> -DCMAKE_DIR=<TritonAOT cmake dir> -DCXX=<c++> -P run.cmake
function(configure name result_var output_var)
  file(REMOVE_RECURSE "${WORK}/${name}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${WORK}/${name}" -G Ninja
                          "-DTRITON_AOT_CMAKE_DIR=${CMAKE_DIR}" ${ARGN}
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  set(${result_var} "${result}" PARENT_SCOPE)
  set(${output_var} "${output}" PARENT_SCOPE)
endfunction()

configure(shared result output "-DCMAKE_CXX_COMPILER=${CXX}")
if(NOT result EQUAL 0 OR NOT output MATCHES "the C\\+\\+ runtime is shared")
  message(FATAL_ERROR "the system's compiler ${CXX} was refused:\n${output}")
endif()

set(ENV{TTA_REAL_CXX} "${CXX}")
configure(static result output "-DCMAKE_CXX_COMPILER=${SOURCE}/static-runtime-cxx")
string(REGEX REPLACE "[ \n]+" " " flat "${output}")
if(result EQUAL 0)
  message(FATAL_ERROR "a compiler linking its own C++ runtime was accepted:\n${output}")
endif()
foreach(expected "links its own C\\+\\+ runtime into shared libraries"
                 "errors would crash the process" "-DCMAKE_CXX_COMPILER=/usr/bin/g\\+\\+")
  if(NOT flat MATCHES "${expected}")
    message(FATAL_ERROR "the refusal does not say '${expected}':\n${output}")
  endif()
endforeach()
message(STATUS "refused as expected; the system's compiler accepted")
