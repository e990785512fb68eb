# One fuzz test: copies the seed corpus CORPUS to WORK/corpus (the repository's corpus is never
# written) and runs FUZZER on it for SECONDS, with the dictionary DICT where there is one. A crash, leak, sanitizer report or timeout fails
# the test; its input is left in WORK as crash-*, leak-*, timeout-* (libFuzzer's names).
#   cmake -DFUZZER=... -DCORPUS=... -DDICT=... -DWORK=... -DSECONDS=10 -P run_fuzzer.cmake
file(REMOVE_RECURSE "${WORK}/corpus")
file(MAKE_DIRECTORY "${WORK}/corpus")
file(GLOB _seeds "${CORPUS}/*")
if(_seeds)
  file(COPY ${_seeds} DESTINATION "${WORK}/corpus")
endif()
set(_dict "")
if(EXISTS "${DICT}")
  set(_dict "-dict=${DICT}")
endif()
execute_process(
  COMMAND "${FUZZER}" ${_dict} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
          -print_final_stats=1 "-artifact_prefix=${WORK}/" "${WORK}/corpus"
  RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (${_rc}); the input is in ${WORK}")
endif()
