# add_subdirectory(<triton-aot>) and find_package(TritonAOT), from the installed toolchain and
# from the build tree, give the same TritonAOT:: targets, functions and library targets: the
# targets_probe project is configured (only) in each mode and writes the same targets.txt.
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
set(probe "${PLUGIN_PROJECTS}/targets_probe")
plugin_configure("${probe}" "${PLUGIN_WORK}/installed" -DPROBE_MODE=package
                 "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}")
plugin_configure("${probe}" "${PLUGIN_WORK}/build_tree" -DPROBE_MODE=package
                 "-DTritonAOT_DIR=${PLUGIN_BUILD_DIR}")
# The triton-aot tree is configured, not built, and without its tests and benchmarks.
plugin_configure("${probe}" "${PLUGIN_WORK}/subdirectory" -DPROBE_MODE=subdirectory
                 "-DTRITON_AOT_SOURCE_DIR=${PLUGIN_SOURCE_DIR}" -DTRITON_AOT_BUILD_TESTS=OFF
                 -DTRITON_AOT_BUILD_BENCH=OFF)

file(READ "${PLUGIN_WORK}/installed/targets.txt" installed)
message(STATUS "find_package(TritonAOT), installed:\n${installed}")
if(NOT installed MATCHES "target TritonAOT::triton-aot-cc EXECUTABLE")
  message(FATAL_ERROR "the installed package has no TritonAOT::triton-aot-cc executable")
endif()
foreach(mode build_tree subdirectory)
  file(READ "${PLUGIN_WORK}/${mode}/targets.txt" other)
  if(NOT other STREQUAL installed)
    message(FATAL_ERROR "${mode} differs from the installed package:\n"
                        "--- installed\n${installed}--- ${mode}\n${other}")
  endif()
endforeach()
