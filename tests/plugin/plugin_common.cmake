# Helpers for the plugin test drivers (cmake -P scripts). Each driver gets, as -D variables:
#   PLUGIN_WORK        its own scratch directory (removed and remade by the driver that owns it)
#   PLUGIN_PROJECTS    tests/plugin/projects
#   PLUGIN_SOURCE_DIR  the triton-aot source tree;  PLUGIN_BUILD_DIR  its build tree (a package)
#   PLUGIN_TOOLCHAIN   where the toolchain fixture installs triton-aot
#   PLUGIN_NINJA, PLUGIN_C_COMPILER, PLUGIN_CXX_COMPILER   the tools of the triton-aot build
#   PLUGIN_CACHE       the compile cache shared by tests that are not about a clean build
cmake_minimum_required(VERSION 3.25)

# Compiles in the test projects never run on a cache or Python a developer's shell points at.
unset(ENV{TRITON_AOT_CACHE_DIR})
unset(ENV{TRITON_AOT_PYTHON})
unset(ENV{VIRTUAL_ENV})     # an active environment with Triton would be taken (docs/cmake.md#python)
unset(ENV{CONDA_PREFIX})
unset(ENV{CMAKE_TRITON_ARCHITECTURES})

# plugin_run(COMMAND <argv>... [OUTPUT <var>] [RESULT <var>] [WORKING_DIRECTORY <dir>])
# Runs a command with stdout and stderr merged. Without RESULT, a non-zero exit status fails
# the test with the command and its output.
function(plugin_run)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "OUTPUT;RESULT;WORKING_DIRECTORY" "COMMAND")
  set(where "")
  if(arg_WORKING_DIRECTORY)
    set(where WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}")
  endif()
  execute_process(COMMAND ${arg_COMMAND} ${where}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(arg_OUTPUT)
    set(${arg_OUTPUT} "${out}" PARENT_SCOPE)
  endif()
  if(arg_RESULT)
    set(${arg_RESULT} "${rc}" PARENT_SCOPE)
  elseif(NOT rc EQUAL 0)
    list(JOIN arg_COMMAND " " shown)
    message(FATAL_ERROR "failed (${rc}): ${shown}\n${out}")
  endif()
endfunction()

# plugin_configure(<source dir> <build dir> <cmake argument>...): a Ninja configure with the
# compilers triton-aot was built with.
function(plugin_configure source build)
  plugin_run(COMMAND "${CMAKE_COMMAND}" -S "${source}" -B "${build}" -G Ninja
                     "-DCMAKE_MAKE_PROGRAM=${PLUGIN_NINJA}"
                     "-DCMAKE_C_COMPILER=${PLUGIN_C_COMPILER}"
                     "-DCMAKE_CXX_COMPILER=${PLUGIN_CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Release ${ARGN})
endfunction()

# plugin_expect(<text> <regex> <what>): fails unless <regex> matches <text>.
function(plugin_expect text regex what)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected to match '${regex}' in:\n${text}")
  endif()
endfunction()

# plugin_count(<out> <regex> <lines>...): how many of <lines> match <regex>.
function(plugin_count out regex)
  set(count 0)
  foreach(line IN LISTS ARGN)
    if(line MATCHES "${regex}")
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
  set(${out} ${count} PARENT_SCOPE)
endfunction()

# plugin_lines(<out> <text>): <text> as a list of lines (';' and '[' ']' kept out of the way).
function(plugin_lines out text)
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "<" text "${text}")
  string(REPLACE "]" ">" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

# plugin_mtime(<out> <file>): the modification time with nanoseconds ("" when missing).
function(plugin_mtime out file)
  set(time "")
  if(EXISTS "${file}")
    execute_process(COMMAND stat -c %.9Y "${file}" OUTPUT_VARIABLE time
                    OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  endif()
  set(${out} "${time}" PARENT_SCOPE)
endfunction()
