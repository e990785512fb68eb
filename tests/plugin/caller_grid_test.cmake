# The caller_grid project: a kernel declared without GRID builds (no -g on its compile rule, no
# grid in its metadata), its entry point takes grid_x, grid_y, grid_z after the stream, and the
# program using it builds with -Wall -Wextra -Werror and runs (without a GPU: an empty grid).
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
set(build "${PLUGIN_WORK}/build")
plugin_configure("${PLUGIN_PROJECTS}/caller_grid" "${build}"
                 "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}" "-DTRITON_AOT_CACHE_DIR=${PLUGIN_CACHE}")
file(STRINGS "${build}/build.ninja" compile_rules REGEX "triton-aot-cc.*rms_norm_rows\\.py")
list(LENGTH compile_rules count)
if(NOT count EQUAL 2)
  message(FATAL_ERROR "expected a compile of rms_norm for 80 and gfx942, found ${count}:\n"
                      "${compile_rules}")
endif()
foreach(rule IN LISTS compile_rules)
  if(rule MATCHES " -g ")
    message(FATAL_ERROR "the kernel without GRID is compiled with a grid: ${rule}")
  endif()
endforeach()

plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${build}" OUTPUT out)
file(READ "${build}/rows.triton-aot/rows.h" header)
string(REGEX REPLACE "[ \n]+" " " header "${header}")
plugin_expect("${header}" "rows_rms_norm\\(void \\*stream, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, const void \\*Y_ptr,"
              "the caller-grid entry point")
plugin_expect("${header}" "rows_add\\(void \\*stream, const void \\*x_ptr," "the computed-grid entry point")
file(READ "${build}/rows.triton-aot/rows.json" manifest)
string(JSON rms_grid_type TYPE "${manifest}" kernels 0 grid)
if(NOT rms_grid_type STREQUAL "NULL")
  message(FATAL_ERROR "rms_norm's grid in the manifest is ${rms_grid_type}, expected null")
endif()
plugin_run(COMMAND "${build}/caller_grid_program" OUTPUT out)
plugin_expect("${out}" "empty 0 config 6 add 0" "the program's output")
