# The full_signatures project: kernels declared with every parameter named configure and build
# (a heuristic's parameter, a defaulted one, ones an autotune config sets); the library has each
# config with its heuristic's two variants. A name that is no parameter configures too, and the
# build fails saying which parameters there are.
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
set(build "${PLUGIN_WORK}/build")
plugin_configure("${PLUGIN_PROJECTS}/full_signatures" "${build}"
                 "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}" "-DTRITON_AOT_CACHE_DIR=${PLUGIN_CACHE}")
plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${build}" OUTPUT out)

file(READ "${build}/full.triton-aot/full.h" header)
string(REGEX REPLACE "[ \n]+" " " header "${header}")
plugin_expect("${header}" "full_scale\\(void \\*stream, const void \\*x_ptr, const void \\*y_ptr, int32_t n_elements, float factor\\);"
              "scale's entry point: EVEN_N and MODE are not its arguments")
plugin_expect("${header}" "full_even_scale\\(void \\*stream, const void \\*x_ptr, const void \\*out_ptr, int32_t n\\);"
              "even_scale's entry point")
file(READ "${build}/full.triton-aot/full.json" manifest)
# kernel, config: "constexpr=value ..." and the heuristic's values of its variants
set(expected
  "scale wide: BLOCK_N=1024 MODE=scale EVEN_N=True,False"
  "scale narrow: BLOCK_N=256 MODE=scale EVEN_N=True,False"
  "even_scale BLOCK1024_w4_s3: BLOCK=1024 EVEN=True,False"
  "even_scale BLOCK256_w2_s3: BLOCK=256 EVEN=True,False")
set(found "")
string(JSON kernel_count LENGTH "${manifest}" kernels)
math(EXPR last_kernel "${kernel_count} - 1")
foreach(k RANGE ${last_kernel})
  string(JSON kernel GET "${manifest}" kernels ${k} name)
  string(JSON config_count LENGTH "${manifest}" kernels ${k} configs)
  math(EXPR last_config "${config_count} - 1")
  foreach(c RANGE ${last_config})
    string(JSON config GET "${manifest}" kernels ${k} configs ${c} name)
    string(JSON variant_count LENGTH "${manifest}" kernels ${k} configs ${c} variants)
    math(EXPR last_variant "${variant_count} - 1")
    set(values "")
    set(heuristic "")
    foreach(v RANGE ${last_variant})
      string(JSON name GET "${manifest}" kernels ${k} configs ${c} variants ${v} heuristics 0 name)
      string(JSON value GET "${manifest}" kernels ${k} configs ${c} variants ${v} heuristics 0 value)
      set(heuristic "${name}")
      if(value STREQUAL "ON")   # string(JSON) reads true as ON
        set(value True)
      elseif(value STREQUAL "OFF")
        set(value False)
      endif()
      list(APPEND values "${value}")
    endforeach()
    list(REMOVE_DUPLICATES values)
    list(SORT values ORDER DESCENDING)
    list(JOIN values "," values)
    string(JSON constexprs GET "${manifest}" kernels ${k} configs ${c} constexprs)
    string(JSON constexpr_count LENGTH "${constexprs}")
    math(EXPR last_constexpr "${constexpr_count} - 1")
    set(pairs "")
    foreach(i RANGE ${last_constexpr})
      string(JSON key MEMBER "${constexprs}" ${i})
      string(JSON value GET "${constexprs}" "${key}")
      list(APPEND pairs "${key}=${value}")
    endforeach()
    list(JOIN pairs " " pairs)
    list(APPEND found "${kernel} ${config}: ${pairs} ${heuristic}=${values}")
  endforeach()
endforeach()
if(NOT found STREQUAL expected)
  list(JOIN found "\n  " found)
  list(JOIN expected "\n  " expected)
  message(FATAL_ERROR "the library's configs:\n  ${found}\nexpected:\n  ${expected}")
endif()

# A misspelt name configures; the build fails naming the parameters.
set(bad "${PLUGIN_WORK}/misspelt")
plugin_configure("${PLUGIN_PROJECTS}/full_signatures" "${bad}" -DWITH_MISSPELT_NAME=ON
                 "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}" "-DTRITON_AOT_CACHE_DIR=${PLUGIN_CACHE}")
plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${bad}" OUTPUT out RESULT rc)
if(rc EQUAL 0)
  message(FATAL_ERROR "the build with the misspelt name succeeded:\n${out}")
endif()
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")
plugin_expect("${flat}" "scale_modes\\.py:11: error: signature entry 7 'MOOD' has no value: config 'BLOCK_N=1024' gives MOOD no value, and 'scale_kernel' has no parameter MOOD \\(its parameters: x_ptr, y_ptr, n_elements, factor, BLOCK_N, EVEN_N, MODE\\); did you mean MODE\\?"
              "the build's error")
