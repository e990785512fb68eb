# Reproducible outputs (docs/reproducible.md): one project copied to two checkout directories
# (one built inside its tree, one beside it), each built with its own cache so both really
# compile. Every image, metadata file, the manifest, the header, the generated C and the shared
# library must be byte for byte the same, and none may name either directory, the virtual
# environment of the interpreter that compiled the kernels, or triton-aot's own trees.
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
set(source_a "${PLUGIN_WORK}/a/project")
set(build_a "${source_a}/build")
set(source_b "${PLUGIN_WORK}/checkout-b/src/project")
set(build_b "${PLUGIN_WORK}/checkout-b/build")
foreach(side a b)
  file(COPY "${PLUGIN_PROJECTS}/reproducible/" DESTINATION "${source_${side}}")
  plugin_configure("${source_${side}}" "${build_${side}}" -DCMAKE_BUILD_TYPE=RelWithDebInfo
                   "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}"
                   "-DTRITON_AOT_CACHE_DIR=${PLUGIN_WORK}/cache-${side}")
  plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${build_${side}}" OUTPUT built)
  plugin_expect("${built}" "Triton kernel row_sum \\(kernels/row_sum\\.py\\)" "the compile of ${side}")
endforeach()

# The files of the library, by their names in the build tree.
set(generated "reproducible.triton-aot")
file(GLOB_RECURSE files RELATIVE "${build_a}"
     "${build_a}/${generated}/compile/*.cubin" "${build_a}/${generated}/compile/*.ptx"
     "${build_a}/${generated}/compile/*.hsaco" "${build_a}/${generated}/compile/*.json")
file(GLOB_RECURSE files_b RELATIVE "${build_b}"
     "${build_b}/${generated}/compile/*.cubin" "${build_b}/${generated}/compile/*.ptx"
     "${build_b}/${generated}/compile/*.hsaco" "${build_b}/${generated}/compile/*.json")
# index.json lists the build tree's paths for the linker: a build file, never shipped.
list(FILTER files EXCLUDE REGEX "/\\.triton-aot-cache/|/index\\.json$")
list(FILTER files_b EXCLUDE REGEX "/\\.triton-aot-cache/|/index\\.json$")
if(NOT files STREQUAL files_b)
  message(FATAL_ERROR "the two builds made other files:\n${files}\n${files_b}")
endif()
if(NOT files MATCHES "\\.cubin" OR NOT files MATCHES "\\.ptx")
  message(FATAL_ERROR "no image was built: ${files}")
endif()
list(APPEND files "${generated}/reproducible.h" "${generated}/reproducible.c"
                  "${generated}/reproducible.json" "${generated}/reproducible.images"
                  libreproducible.so)

set(differ "")
set(checked "")
foreach(file IN LISTS files)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${build_a}/${file}" "${build_b}/${file}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(APPEND differ "${file}")
  endif()
  list(APPEND checked "${build_a}/${file}" "${build_b}/${file}")
endforeach()
if(differ)
  list(JOIN differ "\n  " shown)
  message(FATAL_ERROR "built from two directories, these differ:\n  ${shown}")
endif()

# No directory of either checkout, nor the interpreter's environment as configured or resolved
# (a venv is often a link), nor where triton-aot was built (its runtime's objects are in the
# library).
execute_process(COMMAND "${PLUGIN_PYTHON}" -c "import sys; print(sys.prefix)"
                OUTPUT_VARIABLE prefix OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
cmake_path(GET PLUGIN_PYTHON PARENT_PATH venv_bin)
cmake_path(GET venv_bin PARENT_PATH venv)
file(REAL_PATH "${venv}" venv_real)
set(patterns "${PLUGIN_WORK}" "${venv}" "${venv_real}" "${prefix}" "${PLUGIN_SOURCE_DIR}"
             "${PLUGIN_BUILD_DIR}")
list(REMOVE_DUPLICATES patterns)
set(grep_args "")
foreach(pattern IN LISTS patterns)
  list(APPEND grep_args -e "${pattern}")
endforeach()
execute_process(COMMAND grep -l -a -F ${grep_args} ${checked}
                RESULT_VARIABLE rc OUTPUT_VARIABLE leaking)
if(rc EQUAL 0)
  message(FATAL_ERROR "built files name a directory of the build machine (${patterns}):\n${leaking}")
elseif(NOT rc EQUAL 1)
  message(FATAL_ERROR "grep failed (${rc})")
endif()
list(LENGTH files count)
message(STATUS "${count} files the same from both directories, none naming them: ${files}")
