# The tuned project: TUNE_* become the tuning spec (<lib>.triton-aot/<lib>.tune.json) and the
# `tune` targets exist but are not built by default; the committed table goes to the link
# (--tuning) and the program sees the configs it gives each size.
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
set(build "${PLUGIN_WORK}/build")
plugin_configure("${PLUGIN_PROJECTS}/tuned" "${build}"
                 "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}" "-DTRITON_AOT_CACHE_DIR=${PLUGIN_CACHE}")
file(READ "${build}/adds.triton-aot/adds.tune.json" spec)
string(JSON kernel GET "${spec}" kernels 0 kernel)
string(JSON key GET "${spec}" kernels 0 key 0)
string(JSON shape GET "${spec}" kernels 0 shapes 1 0)
string(JSON size GET "${spec}" kernels 0 args out_ptr)
if(NOT kernel STREQUAL "add" OR NOT key STREQUAL "n_elements" OR NOT shape EQUAL 1048576 OR
   NOT size STREQUAL "n_elements")
  message(FATAL_ERROR "unexpected tuning spec:\n${spec}")
endif()
# SPECIALIZE AUTO: each tuned shape is a call, TUNE_ARGS computing its other arguments; and
# the call given as it is.
file(STRINGS "${build}/build.ninja" compile_rules REGEX "triton-aot-cc")
plugin_expect("${compile_rules}" "--specialize-for n_elements=1024, --specialize-for n_elements=1048576, --specialize-for \"?n_elements=1\"? --specialize-arg \"?x_ptr=n_elements\"?"
              "the specialization of the compile")
file(STRINGS "${build}/build.ninja" link_rules REGEX "triton-aot-ld.*--tuning")
plugin_expect("${link_rules}" "--tuning [^ ]*/projects/tuned/adds\\.tuning\\.json" "the link's table")
plugin_run(COMMAND "${PLUGIN_NINJA}" -C "${build}" -t targets all OUTPUT targets)
plugin_expect("${targets}" "adds_tune: phony" "the library's tune target")
plugin_expect("${targets}" "(^|\n)tune: phony" "the project's tune target")

plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${build}" OUTPUT out)
file(GLOB modules "${build}/*adds_tuning_module*")
if(modules)
  message(FATAL_ERROR "the default build made the tuning module; only `tune` should")
endif()
plugin_run(COMMAND "${build}/tuned_program" OUTPUT out)
plugin_expect("${out}" "1:small 1024:small 32767:small 32768:big 1048576:big 1073741824:big other:small"
              "the configs the table gives each size")
