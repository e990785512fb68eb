# Builds and runs the example projects against a triton-aot build tree (the `demo` target of
# examples/CMakeLists.txt runs this; see examples/README.md):
#   cmake -DTRITON_AOT_DIR=<triton-aot build dir> -DTRITON_AOT_LD=<triton-aot-ld>
#         -DEXAMPLES_SOURCE_DIR=<examples/> -DEXAMPLES_BINARY_DIR=<dir>
#         [-DGENERATOR=Ninja] -P run_examples.cmake
# Each example is configured and built in <dir>/<name> for 80;90a;gfx942 (plus native when
# nvidia-smi lists a GPU); vector_add is installed into <dir>/install and consumer is built
# against that install alone. Then every program runs (a failing one fails this script) and
# the inventory of each library is printed with triton-aot-ld --inspect.
cmake_minimum_required(VERSION 3.25)

foreach(required TRITON_AOT_DIR TRITON_AOT_LD EXAMPLES_SOURCE_DIR EXAMPLES_BINARY_DIR)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "run_examples.cmake: -D${required}=... is required")
  endif()
endforeach()
if(NOT GENERATOR)
  set(GENERATOR Ninja)
endif()

set(architectures "80;90a;gfx942")
find_program(NVIDIA_SMI nvidia-smi)
if(NVIDIA_SMI)
  execute_process(COMMAND "${NVIDIA_SMI}" -L OUTPUT_VARIABLE gpus RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0 AND gpus MATCHES "GPU [0-9]+:")
    list(APPEND architectures native)   # the GPU of this machine, to run the examples on
  endif()
endif()

# run_step(<what> COMMAND <command>...): runs it, its output going to ours; stops the script
# when it fails. PARSE_ARGV keeps arguments that hold a list ("-DX=80;90a") whole.
function(run_step what)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "COMMAND")
  message(STATUS "examples: ${what}")
  execute_process(COMMAND ${arg_COMMAND} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "examples: ${what} failed (${rc})")
  endif()
endfunction()

# cuda_runtime builds against the CUDA toolkit (its headers and libcudart), hip_runtime against
# the HIP runtime's (hip/hip_runtime_api.h, libamdhip64): where they are.
set(examples vector_add softmax matmul kernel_package consumer)
find_program(NVCC nvcc HINTS ENV CUDA_HOME /usr/local/cuda PATH_SUFFIXES bin)
set(cuda_root "")
if(NVCC)
  list(APPEND examples cuda_runtime)
  get_filename_component(cuda_root "${NVCC}" DIRECTORY)
  get_filename_component(cuda_root "${cuda_root}" DIRECTORY)
else()
  message(STATUS "examples: cuda_runtime left out: no CUDA toolkit (nvcc) here")
endif()
find_path(HIP_INCLUDE hip/hip_runtime_api.h HINTS ENV ROCM_PATH PATHS /opt/rocm /usr PATH_SUFFIXES include)
if(HIP_INCLUDE)
  list(APPEND examples hip_runtime)
else()
  message(STATUS "examples: hip_runtime left out: no HIP runtime headers here (Debian: libamdhip64-dev)")
endif()
# -DONLY=<name>: that example alone (a test's; it says "cannot be built here" and stops where
# the example's toolkit is missing).
if(DEFINED ONLY)
  if(NOT ONLY IN_LIST examples)
    message(STATUS "examples: ${ONLY} cannot be built here")
    return()
  endif()
  set(examples "${ONLY}")
endif()

set(install_dir "${EXAMPLES_BINARY_DIR}/install")
foreach(name IN LISTS examples)
  set(build_dir "${EXAMPLES_BINARY_DIR}/${name}")
  set(configure "${CMAKE_COMMAND}" -S "${EXAMPLES_SOURCE_DIR}/${name}" -B "${build_dir}"
                -G "${GENERATOR}")
  if(name STREQUAL "consumer")
    # Only the installed package: no TritonAOT_DIR, no architectures.
    run_step("configure consumer" COMMAND ${configure} "-DCMAKE_PREFIX_PATH=${install_dir}")
  else()
    run_step("configure ${name}" COMMAND ${configure} "-DTritonAOT_DIR=${TRITON_AOT_DIR}"
             "-DCMAKE_TRITON_ARCHITECTURES=${architectures}" "-DCUDAToolkit_ROOT=${cuda_root}")
  endif()
  run_step("build ${name}" COMMAND "${CMAKE_COMMAND}" --build "${build_dir}")
  if(name STREQUAL "vector_add")
    run_step("install vector_add into ${install_dir}"
             COMMAND "${CMAKE_COMMAND}" --install "${build_dir}" --prefix "${install_dir}")
  endif()
endforeach()

# Every program runs even when one fails; the script fails at the end.
set(failed "")
foreach(name IN LISTS examples)
  message(STATUS "examples: run ${name}")
  execute_process(COMMAND "${EXAMPLES_BINARY_DIR}/${name}/${name}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(APPEND failed "${name} (${rc})")
  endif()
endforeach()

foreach(name vector_add softmax matmul kernel_package)
  if(NOT name IN_LIST examples)
    continue()
  endif()
  # The manifest triton_add_library() wrote (its target property TRITON_AOT_MANIFEST).
  file(GLOB_RECURSE manifest "${EXAMPLES_BINARY_DIR}/${name}/${name}_kernels.json")
  if(NOT manifest)
    list(APPEND failed "${name}: no ${name}_kernels.json manifest")
    continue()
  endif()
  list(GET manifest 0 manifest)
  message(STATUS "examples: triton-aot-ld --inspect ${manifest}")
  execute_process(COMMAND "${TRITON_AOT_LD}" --inspect "${manifest}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(APPEND failed "triton-aot-ld --inspect ${manifest} (${rc})")
  endif()
endforeach()

if(failed)
  list(JOIN failed ", " failed)
  message(FATAL_ERROR "examples: failed: ${failed}")
endif()
message(STATUS "examples: all built and ran (architectures ${architectures})")
