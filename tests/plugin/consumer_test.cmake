# Installs the two_kernels library (triton_install_library) from the build the two_kernels
# fixture made, moves the installed prefix elsewhere, then configures, builds and runs the
# consumer project against it with find_package only, in an environment that has no Python,
# no Triton, no CUDA toolkit, no GPU and no triton-aot: an empty environment whose PATH holds
# only cmake, ninja, cc, c++ and the binutils the compiler driver runs (as, ld, ar, ranlib).
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
set(staging "${PLUGIN_WORK}/staging")
set(prefix "${PLUGIN_WORK}/moved/two_kernels")
plugin_run(COMMAND "${CMAKE_COMMAND}" --install "${TWO_KERNELS_BUILD}" --prefix "${staging}")
file(MAKE_DIRECTORY "${PLUGIN_WORK}/moved")
file(RENAME "${staging}" "${prefix}")

foreach(file include/two_kernels.h lib/libtwo_kernels.a share/two_kernels/two_kernels.json
             lib/cmake/two_kernels/two_kernelsConfig.cmake
             lib/cmake/two_kernels/two_kernelsConfigVersion.cmake
             lib/cmake/two_kernels/two_kernelsTargets.cmake)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "the installed package has no ${file}")
  endif()
endforeach()
file(GLOB_RECURSE package_files "${prefix}/lib/cmake/*")
foreach(file IN LISTS package_files)
  file(READ "${file}" text)
  foreach(path "${staging}" "${TWO_KERNELS_BUILD}" "${PLUGIN_SOURCE_DIR}" "${PLUGIN_TOOLCHAIN}")
    string(FIND "${text}" "${path}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${file} names ${path}: the package is not relocatable\n${text}")
    endif()
  endforeach()
  if(text MATCHES "find_(package|dependency)\\((TritonAOT|Python|CUDA)|TritonAOT::")
    message(FATAL_ERROR "${file} needs triton-aot, Python or CUDA:\n${text}")
  endif()
endforeach()

# The tools, and nothing else, on PATH.
set(tools "${PLUGIN_WORK}/tools")
file(MAKE_DIRECTORY "${tools}")
foreach(tool cmake ninja cc c++ as ld ar ranlib)
  if(tool STREQUAL "cmake")
    set(path "${CMAKE_COMMAND}")
  elseif(tool STREQUAL "ninja")
    set(path "${PLUGIN_NINJA}")
  elseif(tool STREQUAL "cc")
    set(path "${PLUGIN_C_COMPILER}")
  elseif(tool STREQUAL "c++")
    set(path "${PLUGIN_CXX_COMPILER}")
  else()
    find_program(path_${tool} ${tool} REQUIRED)
    set(path "${path_${tool}}")
  endif()
  file(REAL_PATH "${path}" path)
  file(CREATE_LINK "${path}" "${tools}/${tool}" SYMBOLIC)
endforeach()
set(bare env -i "PATH=${tools}" "HOME=${PLUGIN_WORK}" CUDA_VISIBLE_DEVICES=-1
         HIP_VISIBLE_DEVICES=-1 ROCR_VISIBLE_DEVICES=-1)

set(build "${PLUGIN_WORK}/build")
plugin_run(COMMAND ${bare} cmake -S "${PLUGIN_PROJECTS}/consumer" -B "${build}" -G Ninja
                   --no-warn-unused-cli -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}"
                   -DCMAKE_DISABLE_FIND_PACKAGE_TritonAOT=ON -DCMAKE_DISABLE_FIND_PACKAGE_Python=ON
                   -DCMAKE_DISABLE_FIND_PACKAGE_Python3=ON
                   -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCMAKE_DISABLE_FIND_PACKAGE_hip=ON
           OUTPUT out)
message(STATUS "consumer configure:\n${out}")
plugin_expect("${out}" "Build files have been written" "the consumer's configure")
plugin_run(COMMAND ${bare} cmake --build "${build}" OUTPUT out)
message(STATUS "consumer build:\n${out}")
file(READ "${build}/build.ninja" rules)
if(rules MATCHES "triton-aot-|[Pp]ython")
  message(FATAL_ERROR "the consumer's build runs triton-aot or Python: see ${build}/build.ninja")
endif()

# It runs, without a GPU: says so, lists what the library has, exits 0.
plugin_run(COMMAND ${bare} "${build}/consumer" OUTPUT out)
message(STATUS "consumer:\n${out}")
plugin_expect("${out}" "no GPU \\(" "the consumer without a GPU")
foreach(needle "2 kernels" "cuda:80 " "cuda:90a " "hip:gfx942 " "scale_shift ")
  plugin_expect("${out}" "${needle}" "the consumer's inventory")
endforeach()

# The GPU driver is loaded at run time, never linked.
plugin_run(COMMAND readelf -d "${build}/consumer" OUTPUT dynamic)
plugin_run(COMMAND ldd "${build}/consumer" OUTPUT loaded)
foreach(text IN ITEMS "${dynamic}" "${loaded}")
  if(text MATCHES "libcuda|libcudart|libamdhip64|libhsa-runtime")
    message(FATAL_ERROR "the consumer links a GPU library:\n${text}")
  endif()
endforeach()
plugin_expect("${dynamic}" "NEEDED" "readelf -d of the consumer")
