# triton_add_torch_library(<target> KERNELS <library> [NAMESPACE <ns>] [PYTHON <interpreter>])
# A PyTorch extension (a MODULE library, loaded with torch.ops.load_library) registering every
# kernel of <library> (a triton_add_library() target) as the operator torch.ops.<ns>.<kernel>,
# through PyTorch's stable C ABI (torch 2.10 and later): built against one torch, it loads in
# later ones. <ns> defaults to <library>. The torch it builds against is the one of PYTHON, else
# of the interpreter the compiles use (docs/cmake.md#python). docs/torch.md.
function(triton_add_torch_library target)
  set(context "triton_add_torch_library(${target})")
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "KERNELS;NAMESPACE;PYTHON" "")
  if(arg_UNPARSED_ARGUMENTS)
    list(GET arg_UNPARSED_ARGUMENTS 0 unknown)
    message(FATAL_ERROR "${context}: unknown argument '${unknown}'; the keywords are KERNELS, "
                        "NAMESPACE and PYTHON")
  endif()
  foreach(keyword IN LISTS arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${context}: ${keyword} needs a value")
  endforeach()
  if(NOT arg_KERNELS)
    message(FATAL_ERROR "${context}: KERNELS <library> is missing: the triton_add_library() "
                        "target whose kernels become operators")
  endif()
  _triton_aot_library_manifest("${context}" "KERNELS ${arg_KERNELS}" ${arg_KERNELS} manifest)
  set(ns "${arg_KERNELS}")
  if(arg_NAMESPACE)
    set(ns "${arg_NAMESPACE}")
  endif()
  if(NOT ns MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${context}: NAMESPACE '${ns}' is not a C identifier; the operators are "
                        "torch.ops.<namespace>.<kernel>")
  endif()
  if(NOT CMAKE_CXX_COMPILER_LOADED)
    message(FATAL_ERROR "${context}: the operators are C++: enable it, project(... LANGUAGES C CXX)")
  endif()

  if(arg_PYTHON)
    set(python "${arg_PYTHON}")
  else()
    _triton_aot_python(python)
  endif()
  execute_process(
    COMMAND "${python}" -c "import os, torch; print(os.path.dirname(torch.__file__)); print(torch.__version__.split('+')[0]); print('hip' if torch.version.hip else 'cuda')"
    OUTPUT_VARIABLE found ERROR_VARIABLE errors RESULT_VARIABLE status
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${context}: ${python} cannot import torch: ${errors}\n"
                        "Install torch (2.10 or later) there, or give PYTHON <an interpreter that has it>")
  endif()
  string(REPLACE "\n" ";" found "${found}")
  list(GET found 0 torch_dir)
  list(GET found 1 torch_version)
  list(GET found 2 torch_backend)
  if(torch_version VERSION_LESS 2.10)
    message(FATAL_ERROR "${context}: ${python} has torch ${torch_version}; the operators need "
                        "PyTorch's stable C ABI, torch 2.10 or later")
  endif()
  set(torch_lib "${torch_dir}/lib")
  set(gpu_lib "${torch_lib}/libtorch_cuda.so")
  if(torch_backend STREQUAL "hip")
    set(gpu_lib "${torch_lib}/libtorch_hip.so")
  endif()
  foreach(library "${torch_lib}/libtorch_cpu.so" "${torch_lib}/libc10.so" "${gpu_lib}")
    if(NOT EXISTS "${library}")
      message(FATAL_ERROR "${context}: torch ${torch_version} in ${torch_dir} has no ${library}: "
                          "the operators need a GPU build of torch (CUDA or ROCm)")
    endif()
  endforeach()

  _triton_aot_check_shared_cxx_runtime("${context}")

  get_filename_component(library_name "${manifest}" NAME_WE)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.torch")
  set(source "${dir}/${library_name}_torch_ops.cpp")
  add_custom_command(
    OUTPUT "${source}"
    COMMAND TritonAOT::triton-aot-ld --torch-ops "${ns}" --manifest "${manifest}" -o "${dir}"
    DEPENDS "${manifest}" TritonAOT::triton-aot-ld
    COMMENT "Writing the PyTorch operators of ${arg_KERNELS} (torch.ops.${ns})"
    VERBATIM)
  add_library(${target} MODULE "${source}")
  # Linked against the torch it was built with, but never pointing at it: torch is loaded
  # already when torch.ops.load_library() opens the operators, whichever release it is.
  target_include_directories(${target} SYSTEM PRIVATE "${torch_dir}/include")
  target_compile_definitions(${target} PRIVATE USE_CUDA)
  _triton_aot_optimized(${target})
  target_link_libraries(${target} PRIVATE ${arg_KERNELS} "${torch_lib}/libtorch_cpu.so"
                                          "${torch_lib}/libc10.so" "${gpu_lib}")
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    CXX_STANDARD 17
    CXX_STANDARD_REQUIRED ON
    CXX_VISIBILITY_PRESET hidden
    SKIP_BUILD_RPATH ON
    TRITON_AOT_TORCH_NAMESPACE "${ns}"
    TRITON_AOT_TORCH_VERSION "${torch_version}")
endfunction()

# torch reports an operator's error by catching the C++ exception it throws: that needs one C++
# runtime, the shared libstdc++ torch itself uses. A compiler that links its own runtime into
# the extension (a GCC installed elsewhere with only libstdc++.a, for one) builds operators that
# work until their first error, which crashes the process instead. Refused here, once per
# compiler, with the fix.
function(_triton_aot_check_shared_cxx_runtime context)
  if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    return()
  endif()
  if(_TRITON_AOT_SHARED_CXX_RUNTIME_OF STREQUAL CMAKE_CXX_COMPILER)
    return()
  endif()
  set(dir "${CMAKE_BINARY_DIR}/CMakeFiles/TritonAOTTorch")
  file(WRITE "${dir}/runtime_probe.cpp"
       "#include <stdexcept>\nvoid tta_runtime_probe(int n) { if (n) throw std::runtime_error(\"n\"); }\n")
  execute_process(
    COMMAND "${CMAKE_CXX_COMPILER}" -shared -fPIC -o "${dir}/runtime_probe.so" "${dir}/runtime_probe.cpp"
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${context}: ${CMAKE_CXX_COMPILER} cannot build a shared library:\n${output}")
  endif()
  file(STRINGS "${dir}/runtime_probe.so" needed REGEX "libstdc\\+\\+\\.so")
  if(NOT needed)
    message(FATAL_ERROR
      "${context}: ${CMAKE_CXX_COMPILER} links its own C++ runtime into shared libraries "
      "(no libstdc++.so is needed by one it builds), so the operators' errors would crash the "
      "process instead of raising in Python: torch catches them with its shared libstdc++. "
      "Configure with a compiler that links libstdc++.so, such as the system's "
      "(-DCMAKE_CXX_COMPILER=/usr/bin/g++, or CXX=/usr/bin/g++ in a fresh build directory).")
  endif()
  set(_TRITON_AOT_SHARED_CXX_RUNTIME_OF "${CMAKE_CXX_COMPILER}" CACHE INTERNAL
      "the C++ compiler found to link libstdc++.so (triton_add_torch_library)")
endfunction()
