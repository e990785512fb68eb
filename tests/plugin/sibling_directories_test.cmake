# find_package(TritonAOT) in two sibling directories, each declaring a kernel library: both
# configure, each with one compile per architecture.
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
plugin_configure("${PLUGIN_PROJECTS}/sibling_directories" "${PLUGIN_WORK}"
                 "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}")
file(READ "${PLUGIN_WORK}/build.ninja" ninja)
foreach(dir a b)
  foreach(tag sm80 sm90a gfx942)
    plugin_expect("${ninja}" "${dir}/kernels_${dir}\\.triton-aot/compile/add_${dir}\\.${tag}/"
                  "the compile of add_${dir} for ${tag}")
  endforeach()
endforeach()
