# Configures projects/build_rules (nothing is compiled) and checks the rules in build.ninja:
# one compile per kernel and architecture, with the architectures mapped as docs/cmake.md says
# (after a late change of TRITON_ARCHITECTURES; from CMAKE_TRITON_ARCHITECTURES=all-major), each
# compile in the triton_aot_compile pool (TRITON_AOT_COMPILE_JOBS) with a depfile and the cache
# in TRITON_AOT_CACHE_DIR, and one link per library with its options.
include(${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake)

file(REMOVE_RECURSE "${PLUGIN_WORK}")
plugin_configure("${PLUGIN_PROJECTS}/build_rules" "${PLUGIN_WORK}"
                 "-DTritonAOT_DIR=${PLUGIN_BUILD_DIR}" -DTRITON_AOT_COMPILE_JOBS=3
                 "-DTRITON_AOT_CACHE_DIR=${PLUGIN_CACHE}")
file(READ "${PLUGIN_WORK}/CMakeFiles/rules.ninja" rules)
plugin_expect("${rules}" "\npool triton_aot_compile\n  depth = 3\n" "the compile pool")
file(READ "${PLUGIN_WORK}/build.ninja" ninja)

# The build statements, one list item each.
string(REPLACE ";" "," ninja "${ninja}")
string(REPLACE "[" "<" ninja "${ninja}")
string(REPLACE "]" ">" ninja "${ninja}")
string(REGEX REPLACE "\n\n+" ";" statements "${ninja}")

set(compiles "")
set(links "")
foreach(statement IN LISTS statements)
  if(statement MATCHES "COMMAND = [^\n]*triton-aot-cc[^\n]* -o [^ ]*/([a-z]+)\\.triton-aot/compile/([a-z_]+)\\.([^ /]+)/ ")
    set(compile "${CMAKE_MATCH_1} ${CMAKE_MATCH_2} ${CMAKE_MATCH_3}")
    string(REGEX MATCH " -t ([^ ]+)" _ "${statement}")
    string(APPEND compile " ${CMAKE_MATCH_1}")
    if(statement MATCHES "triton-aot-cc[^\n]* --no-ptx")
      string(APPEND compile " no-ptx")
    endif()
    list(APPEND compiles "${compile}")
    # Autotuned kernels declared without CONFIG: no --config, the decorator's configs.
    if(NOT compile MATCHES "^kinds strings " AND statement MATCHES "triton-aot-cc[^\n]* --config ")
      message(FATAL_ERROR "the compile ${compile} has a --config it was not given:\n${statement}")
    endif()
    foreach(want "kinds strings:--config \"?name=b128 BLOCK=128"
                 "kinds rows:--heuristic-values \"?BLOCK_N=1024,4096"
                 "kinds copy:--heuristic \"?USE_WIDE=1")
      string(REPLACE ":" ";" want "${want}")
      list(GET want 0 who)
      list(GET want 1 flag)
      if(compile MATCHES "^${who} " AND NOT statement MATCHES "triton-aot-cc[^\n]* ${flag}")
        message(FATAL_ERROR "the compile ${compile} lacks '${flag}':\n${statement}")
      endif()
    endforeach()
    # Each compile names its triton_add_kernel() call, for errors found only when compiling.
    foreach(want "add:11" "scale_shift:16" "accumulate:21")
      string(REPLACE ":" ";" want "${want}")
      list(GET want 0 who)
      list(GET want 1 line)
      if(compile MATCHES "^[a-z]+ ${who} " AND NOT statement MATCHES
         "triton-aot-cc[^\n]* --declared-at \"CMakeLists\\.txt:${line} \\(triton_add_kernel\\(${who}\\)\\)\"")
        message(FATAL_ERROR "the compile ${compile} does not name CMakeLists.txt:${line}:\n${statement}")
      endif()
    endforeach()
    if((compile MATCHES "^tuned accumulate ") AND NOT statement MATCHES "triton-aot-cc[^\n]* --drop-pre-hooks")
      message(FATAL_ERROR "the compile ${compile} lacks DROP_PRE_HOOKS' --drop-pre-hooks:\n${statement}")
    endif()
    foreach(needle "\n  pool = triton_aot_compile\n" "\n  depfile = "
                   " --cache-dir ${PLUGIN_CACHE} ")
      string(FIND "${statement}" "${needle}" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "the compile ${compile} has no '${needle}':\n${statement}")
      endif()
    endforeach()
  elseif(statement MATCHES "COMMAND = [^\n]*triton-aot-ld ([^\n]*)")
    list(APPEND links "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(SORT compiles)
list(JOIN compiles "\n" compiles)
set(expected
  "changed add gfx90a_xnack- hip:gfx90a:xnack- no-ptx"
  "changed add sm80 cuda:80"
  "changed add sm90a cuda:90a")
# all-major with the default Triton (3.9): its ptxas builds 110a as well (3.6's did not).
foreach(kernel add scale_shift)
  foreach(arch 100a 110a 120a 75 80 90a)
    list(APPEND expected "defaulted ${kernel} sm${arch} cuda:${arch}")
  endforeach()
endforeach()
list(APPEND expected "kinds copy sm80 cuda:80" "kinds rows sm80 cuda:80"
                     "kinds strings sm80 cuda:80"
                     "tuned accumulate sm80 cuda:80" "tuned scale_rows sm80 cuda:80")
list(JOIN expected "\n" expected)
if(NOT compiles STREQUAL expected)
  message(FATAL_ERROR "the compiles (library kernel tag target) are\n${compiles}\n"
                      "expected\n${expected}")
endif()

list(LENGTH links link_count)
if(NOT link_count EQUAL 4)
  message(FATAL_ERROR "expected one link per library, got ${link_count}:\n${links}")
endif()
foreach(link IN LISTS links)
  if(link MATCHES "--name (tuned|kinds) ")
    continue()
  elseif(link MATCHES "--name defaulted ")
    plugin_expect("${link}" "--prefix dflt .*--compress .*--no-ptx " "the link of defaulted")
  else()
    plugin_expect("${link}" "--name changed --prefix changed " "the link of changed")
    if(link MATCHES "--compress|--no-ptx")
      message(FATAL_ERROR "the link of changed has options it was not given: ${link}")
    endif()
  endif()
endforeach()
