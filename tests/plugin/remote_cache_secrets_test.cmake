# A project built against the password-protected redis-server of the cache_redis fixture as
# docs/security.md says to: the URL (without credentials) given to CMake, the password and the
# signing key (made with the one documented command) in files named in the build's environment.
# A second build tree gets every variant from the remote cache (so the password and the key
# were used), and neither secret is in the configures' or builds' output, CMakeCache.txt,
# build.ninja or any other file of either build tree and its cache.
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

set(state "${PLUGIN_CACHE_SERVERS}/redis")
if(NOT EXISTS "${state}/url")
  message("PLUGIN-SKIP: no redis-server (the cache_redis fixture starts one; "
          "tools/bootstrap.sh --dev installs it)")
  return()
endif()
file(STRINGS "${state}/port" port)
file(STRINGS "${state}/password" password)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
file(COPY "${PLUGIN_PROJECTS}/two_kernels/" DESTINATION "${PLUGIN_WORK}/src")
file(MAKE_DIRECTORY "${PLUGIN_WORK}/secrets")
file(WRITE "${PLUGIN_WORK}/secrets/redis-password" "${password}\n")
plugin_run(COMMAND "${PLUGIN_TOOLCHAIN}/bin/triton-aot-cc"
                   --new-remote-cache-key "${PLUGIN_WORK}/secrets/key" OUTPUT out)
plugin_expect("${out}" "TRITON_AOT_REMOTE_CACHE_KEY_FILE=${PLUGIN_WORK}/secrets/key"
              "the new key's instructions")
file(STRINGS "${PLUGIN_WORK}/secrets/key" key)
string(LENGTH "${key}" key_length)
if(NOT key_length EQUAL 64)
  message(FATAL_ERROR "the new key is not 64 hex characters: '${key}'")
endif()
file(WRITE "${PLUGIN_WORK}/architectures.cmake"
     "set(CMAKE_TRITON_ARCHITECTURES \"80\" CACHE STRING \"\")\n")

# Database 2 of the fixture's server, which no other test uses: this test's entries only.
set(url "redis://127.0.0.1:${port}/2")
set(logs "")
foreach(tree first second)
  plugin_run(COMMAND "${CMAKE_COMMAND}" -S "${PLUGIN_WORK}/src" -B "${PLUGIN_WORK}/${tree}"
                     -G Ninja "-DCMAKE_MAKE_PROGRAM=${PLUGIN_NINJA}"
                     "-DCMAKE_C_COMPILER=${PLUGIN_C_COMPILER}" -DCMAKE_BUILD_TYPE=Release
                     "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}"
                     -C "${PLUGIN_WORK}/architectures.cmake" "-DTRITON_AOT_REMOTE_CACHE=${url}"
             OUTPUT configured)
  plugin_run(COMMAND "${CMAKE_COMMAND}" -E env
                     "TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE=${PLUGIN_WORK}/secrets/redis-password"
                     "TRITON_AOT_REMOTE_CACHE_KEY_FILE=${PLUGIN_WORK}/secrets/key"
                     "${PLUGIN_NINJA}" -C "${PLUGIN_WORK}/${tree}" -v OUTPUT built)
  message(STATUS "${tree} build:\n${built}")
  string(APPEND logs "${configured}\n${built}\n")
endforeach()
plugin_expect("${built}"
              "two_kernels: ([0-9]+) variant\\(s\\): 0 compiled, 0 from the local cache, [0-9]+ from the remote cache"
              "the second build tree")
plugin_expect("${built}" "--remote-cache redis://127\\.0\\.0\\.1:${port}/2" "the compile commands")

foreach(secret IN ITEMS "${password}" "${key}")
  string(FIND "${logs}" "${secret}" printed)
  if(NOT printed EQUAL -1)
    message(FATAL_ERROR "a configure or build printed a secret:\n${logs}")
  endif()
  foreach(tree first second)
    file(GLOB_RECURSE files LIST_DIRECTORIES false "${PLUGIN_WORK}/${tree}/*")
    foreach(file IN LISTS files)
      file(STRINGS "${file}" lines REGEX "${secret}")
      if(lines)
        message(FATAL_ERROR "a secret is written in ${file}")
      endif()
    endforeach()
  endforeach()
endforeach()
