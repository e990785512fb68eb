# Fixture: installs the triton-aot build tree into ${PLUGIN_TOOLCHAIN}, as a user would
# (cmake --install), and checks that the install is a complete, self-contained package.
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_TOOLCHAIN}")
plugin_run(COMMAND "${CMAKE_COMMAND}" --install "${PLUGIN_BUILD_DIR}"
                   --prefix "${PLUGIN_TOOLCHAIN}")

set(package "${PLUGIN_TOOLCHAIN}/lib/cmake/TritonAOT")
foreach(file bin/triton-aot-cc bin/triton-aot-ld include/triton_aot/runtime.h
             lib/libtriton_aot_runtime.a share/triton-aot/requirements.txt
             lib/cmake/TritonAOT/TritonAOTConfig.cmake
             lib/cmake/TritonAOT/TritonAOTConfigVersion.cmake
             lib/cmake/TritonAOT/TritonAOTTargets.cmake
             lib/cmake/TritonAOT/TritonAOTFunctions.cmake)
  if(NOT EXISTS "${PLUGIN_TOOLCHAIN}/${file}")
    message(FATAL_ERROR "the install has no ${file}")
  endif()
endforeach()
file(GLOB frontend "${PLUGIN_TOOLCHAIN}/share/triton-aot/frontend/*.py")
if(NOT frontend)
  message(FATAL_ERROR "the install has no compiler frontend in share/triton-aot/frontend")
endif()

# The installed package must not point back into the build tree it came from.
file(GLOB package_files "${package}/*.cmake")
foreach(file IN LISTS package_files)
  file(READ "${file}" text)
  string(FIND "${text}" "${PLUGIN_BUILD_DIR}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${file} names the build tree ${PLUGIN_BUILD_DIR}")
  endif()
endforeach()

# The installed compiler runs from its new place (it finds its frontend relative to itself).
plugin_run(COMMAND "${PLUGIN_TOOLCHAIN}/bin/triton-aot-cc" --version OUTPUT version)
plugin_expect("${version}" "triton-aot" "triton-aot-cc --version")
message(STATUS "installed triton-aot into ${PLUGIN_TOOLCHAIN}")
