# The configure prepares the project's worker pool before the first build: one pool (its
# socket) in the pool directory once CMake has configured, and the build's compile leases a
# worker of that pool that was warmed up for its target before it ran (its -v says so): the
# configure and the build key the pool alike. With TRITON_AOT_PREPARE_WORKERS=OFF the configure
# starts no pool, and the build's worker is not a prepared one. The installation is learned by
# the configure (in the background), not by the build, unless the preparation is off.
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
set(pools "${PLUGIN_WORK}/pools")
file(MAKE_DIRECTORY "${pools}")
file(CHMOD "${pools}" DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
set(ENV{TRITON_AOT_WORKER_POOL_DIR} "${pools}")
set(ENV{TRITON_AOT_WORKER_IDLE} 20)

foreach(prepare ON OFF)
  set(build "${PLUGIN_WORK}/build-${prepare}")
  file(REMOVE_RECURSE "${pools}/")
  file(MAKE_DIRECTORY "${pools}")
  file(CHMOD "${pools}" DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  # A cache of its own: the compile must run, not be answered from the cache.
  plugin_configure("${PLUGIN_PROJECTS}/prepared_workers" "${build}"
                   "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}" "-DTRITON_AOT_PREPARE_WORKERS=${prepare}"
                   "-DTRITON_AOT_CACHE_DIR=${PLUGIN_WORK}/cache-${prepare}")
  file(GLOB sockets "${pools}/pool-*.sock")
  list(LENGTH sockets after_configure)
  if(prepare)
    # The pool forks its workers once its zygote has warmed up, and says so in its log; a build
    # before then stops the warm-up, waiting for no more than one compile.
    foreach(try RANGE 600)
      file(GLOB logs "${pools}/pool-*.sock.log")
      set(log "")
      if(logs)
        file(READ "${logs}" log)
      endif()
      if(log MATCHES "worker\\(s\\) prepared")
        break()
      endif()
      execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 0.1)
    endforeach()
    plugin_expect("${log}" "[0-9]+ worker\\(s\\) prepared" "the pool's log")
  endif()
  plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${build}" OUTPUT out)
  file(GLOB sockets_after_build "${pools}/pool-*.sock")
  if(prepare)
    if(NOT after_configure EQUAL 1)
      message(FATAL_ERROR "the configure started ${after_configure} worker pools, not one")
    endif()
    if(NOT sockets_after_build STREQUAL sockets)
      message(FATAL_ERROR "the build used another pool than the configure prepared:\n"
                          "configure: ${sockets}\nbuild: ${sockets_after_build}")
    endif()
    plugin_expect("${out}" "frontend: worker [0-9]+ was prepared before the run, warmed up for cuda:80"
                  "the build's compile leases a prepared worker")
    if(out MATCHES "learning the Python installation")
      message(FATAL_ERROR "the build learned the installation the configure learned:\n${out}")
    endif()
  else()
    if(NOT after_configure EQUAL 0)
      message(FATAL_ERROR "TRITON_AOT_PREPARE_WORKERS=OFF, yet the configure started a pool")
    endif()
    if(out MATCHES "was prepared before the run")
      message(FATAL_ERROR "a worker was prepared with TRITON_AOT_PREPARE_WORKERS=OFF:\n${out}")
    endif()
    plugin_expect("${out}" "learning the Python installation" "the build learns the installation")
  endif()
endforeach()
