# Plugin.debug_info: a kernel library carries debug information only where its own project's
# build type asks for it. Built Release, no object of librows.a (the generated C, the images,
# the runtime's) has a .debug_info section, whatever type triton-aot itself was built with;
# built RelWithDebInfo, the runtime's objects have theirs. Built with no build type (CMake then
# passes no -O at all), the generated dispatcher is compiled -O2 all the same; with one, the
# build type alone decides.
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
find_program(READELF readelf REQUIRED)

# The archive's members that have a .debug_info section.
function(members_with_debug_info archive out_var)
  plugin_run(COMMAND "${READELF}" -S -W "${archive}" OUTPUT sections)
  string(REPLACE "\n" ";" lines "${sections}")
  set(member "")
  set(found "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^File: .*\\(([^)]+)\\)")
      set(member "${CMAKE_MATCH_1}")
    elseif(line MATCHES "\\] \\.debug_info ")
      list(APPEND found "${member}")
    endif()
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

foreach(type Release RelWithDebInfo)
  set(build "${PLUGIN_WORK}/${type}")
  plugin_configure("${PLUGIN_PROJECTS}/caller_grid" "${build}" "-DCMAKE_BUILD_TYPE=${type}"
                   "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}" "-DTRITON_AOT_CACHE_DIR=${PLUGIN_CACHE}")
  plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${build}" --target rows)
  members_with_debug_info("${build}/librows.a" with_debug)
  if(type STREQUAL "Release" AND with_debug)
    message(FATAL_ERROR "a Release kernel library has debug information in: ${with_debug}")
  endif()
  if(type STREQUAL "RelWithDebInfo")
    list(FILTER with_debug INCLUDE REGEX "^(library_state|launch|driver_cuda)\\.c\\.o$")
    if(NOT with_debug)
      message(FATAL_ERROR "a RelWithDebInfo kernel library has no debug information for the runtime")
    endif()
  endif()
endforeach()

# The generated C's compile line with no build type, and with Release (-O3, no -O2 of ours).
foreach(type "" Release)
  set(build "${PLUGIN_WORK}/optimized-${type}")
  plugin_configure("${PLUGIN_PROJECTS}/caller_grid" "${build}" "-DCMAKE_BUILD_TYPE=${type}"
                   "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}" "-DTRITON_AOT_CACHE_DIR=${PLUGIN_CACHE}")
  plugin_run(COMMAND "${PLUGIN_NINJA}" -C "${build}" -t commands rows OUTPUT commands)
  plugin_lines(lines "${commands}")
  list(FILTER lines INCLUDE REGEX " -c [^ ]*/rows\\.c$")
  if(NOT lines)
    message(FATAL_ERROR "no compile line of rows.c in:\n${commands}")
  endif()
  if(type STREQUAL "" AND NOT lines MATCHES " -O2 ")
    message(FATAL_ERROR "with no build type, the generated C is compiled without -O2: ${lines}")
  endif()
  if(type STREQUAL "Release" AND lines MATCHES " -O2 ")
    message(FATAL_ERROR "a Release build's generated C got our -O2 besides its own: ${lines}")
  endif()
endforeach()
