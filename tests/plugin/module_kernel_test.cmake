# triton_add_kernel(MODULE kernpkg.ops.scale): configure finds the installed module's file, the
# build compiles it as the package's module, and the depfile leaves the installed files out
# (the package's version keys the cache instead: an upgrade recompiles).
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
set(project "${PLUGIN_WORK}/project")
file(COPY "${PLUGIN_PROJECTS}/module_kernel/" DESTINATION "${project}")
set(ENV{PYTHONPATH} "${project}/site-packages")
plugin_configure("${project}" "${PLUGIN_WORK}/build" "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}"
                 "-DTRITON_AOT_CACHE_DIR=${PLUGIN_WORK}/cache")
plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${PLUGIN_WORK}/build" OUTPUT first)
plugin_expect("${first}" "Triton kernel scale \\(.*kernpkg/ops/scale\\.py\\)" "the compile of the module's kernel")
file(GLOB_RECURSE depfiles "${PLUGIN_WORK}/build/*.d")
list(FILTER depfiles INCLUDE REGEX "index\\.d$")
file(READ "${depfiles}" depfile)
if(depfile MATCHES "common\\.py")
  message(FATAL_ERROR "the depfile lists an installed module:\n${depfile}")
endif()

# A touch: the compile reruns and the cache answers (the package is the same).
file(TOUCH "${project}/site-packages/kernpkg/ops/scale.py")
plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${PLUGIN_WORK}/build" OUTPUT touched)
plugin_expect("${touched}" "cache hit" "a touched module of an unchanged package served from the cache")

# An upgrade (the dist-info renamed, as pip does) recompiles although no source changed.
set(packages "${project}/site-packages")
file(RENAME "${packages}/kernpkg-1.0.dist-info" "${packages}/kernpkg-1.1.dist-info")
file(WRITE "${packages}/kernpkg-1.1.dist-info/METADATA" "Metadata-Version: 2.1\nName: kernpkg\nVersion: 1.1\n")
file(WRITE "${packages}/kernpkg-1.1.dist-info/RECORD"
     "kernpkg/__init__.py,,\nkernpkg/ops/__init__.py,,\nkernpkg/ops/common.py,,\nkernpkg/ops/scale.py,,\n"
     "kernpkg-1.1.dist-info/METADATA,,\nkernpkg-1.1.dist-info/top_level.txt,,\n")
file(TOUCH "${packages}/kernpkg/ops/scale.py")
plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${PLUGIN_WORK}/build" OUTPUT upgraded)
plugin_expect("${upgraded}" "compiled: scale" "the kernel recompiled after the package's upgrade")
