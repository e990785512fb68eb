# Configures the errors project with one case (CASE: a file of projects/errors/cases) into a
# fresh directory, against the build tree's TritonAOT package, and checks that configure fails,
# prints every `# expect: <regex>` of the case, and reports the error at the call marked
# `# <- error`: CMake's call stack names it as "cases/<case>.cmake:<line> (<command>)".
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

set(case_file "${PLUGIN_PROJECTS}/errors/cases/${CASE}.cmake")
file(READ "${case_file}" case_text)

# `native` works on a machine with a GPU: nothing to check there.
if(CASE MATCHES "native")
  find_program(nvidia_smi nvidia-smi)
  find_program(rocm_agent_enumerator rocm_agent_enumerator HINTS /opt/rocm/bin)
  set(gpus "")
  if(nvidia_smi)
    execute_process(COMMAND "${nvidia_smi}" -L OUTPUT_VARIABLE gpus ERROR_QUIET)
  endif()
  if(rocm_agent_enumerator)
    execute_process(COMMAND "${rocm_agent_enumerator}" -t GPU OUTPUT_VARIABLE amd ERROR_QUIET)
    string(REPLACE "gfx000" "" amd "${amd}")
    string(APPEND gpus "${amd}")
  endif()
  if(gpus MATCHES "GPU [0-9]|gfx")
    message("PLUGIN-SKIP: this machine has a GPU, so 'native' is not an error here")
    return()
  endif()
endif()

# The marked call: its line number and command.
string(FIND "${case_text}" "# <- error" marker)
if(marker EQUAL -1)
  message(FATAL_ERROR "${case_file} marks no call with '# <- error'")
endif()
string(SUBSTRING "${case_text}" 0 ${marker} before)
string(REGEX MATCHALL "\n" newlines "${before}")
list(LENGTH newlines line)
math(EXPR line "${line} + 1")
string(REGEX MATCH "([A-Za-z_]+)\\([^\n]*$" _ "${before}")
set(location "cases/${CASE}.cmake:${line} (${CMAKE_MATCH_1})")

# The expected messages, one per `# expect:` line (read without list splitting: they hold ';').
set(expects "")
set(rest "${case_text}")
set(count 0)
while(TRUE)
  string(FIND "${rest}" "# expect: " at)
  if(at EQUAL -1)
    break()
  endif()
  math(EXPR at "${at} + 10")
  string(SUBSTRING "${rest}" ${at} -1 rest)
  string(FIND "${rest}" "\n" end)
  string(SUBSTRING "${rest}" 0 ${end} expect_${count})
  math(EXPR count "${count} + 1")
endwhile()
if(count EQUAL 0)
  message(FATAL_ERROR "${case_file} expects nothing ('# expect: <regex>' lines)")
endif()

set(build "${PLUGIN_WORK}/${CASE}")
file(REMOVE_RECURSE "${build}")
plugin_run(COMMAND "${CMAKE_COMMAND}" -S "${PLUGIN_PROJECTS}/errors" -B "${build}" -G Ninja
                   "-DCMAKE_MAKE_PROGRAM=${PLUGIN_NINJA}" "-DCMAKE_C_COMPILER=${PLUGIN_C_COMPILER}"
                   "-DTritonAOT_DIR=${PLUGIN_BUILD_DIR}" "-DPLUGIN_CASE=${CASE}"
           OUTPUT out RESULT rc)
message(STATUS "configure of case ${CASE} (exit status ${rc}):\n${out}")
if(rc EQUAL 0)
  message(FATAL_ERROR "configure succeeded; expected it to fail")
endif()
# CMake wraps and indents messages: compare with runs of white space made one space.
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  if(NOT flat MATCHES "CMake Error at .*${expect_${i}}")
    message(FATAL_ERROR "expected an error matching '${expect_${i}}'")
  endif()
endforeach()
string(FIND "${flat}" "Call Stack (most recent call first): " stack)
string(FIND "${flat}" " ${location} " at)
if(stack EQUAL -1 OR at LESS stack)
  message(FATAL_ERROR "the error is not reported at the call, ${location}:\n${out}")
endif()
