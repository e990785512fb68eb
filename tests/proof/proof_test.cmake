# Driver of Proof.equality (tests/proof/CMakeLists.txt): skips at once without a GPU or torch,
# else builds bench/proof in ${PLUGIN_WORK} from scratch, compiling with the Triton of
# PROOF_PYTHON (the one equality.py launches with, so the images can be the same), and runs
# its equality test.
include(${PLUGIN_SOURCE_DIR}/tests/plugin/plugin_common.cmake)

# The same question equality.py asks first, before a minute of building.
plugin_run(COMMAND "${PROOF_PYTHON}" -c
  "import sys\ntry:\n import torch, triton\nexcept ImportError as e:\n sys.exit(f'no {e.name}')\nsys.exit(0 if torch.cuda.is_available() else 'torch sees no GPU')"
  OUTPUT probe RESULT rc)
if(NOT rc EQUAL 0)
  string(STRIP "${probe}" probe)
  message(STATUS "PROOF-SKIP: ${PROOF_PYTHON}: ${probe}")
  return()
endif()

set(build "${PLUGIN_WORK}/build")
file(REMOVE_RECURSE "${PLUGIN_WORK}")
# A list on the command line would be split by execute_process: a cache script sets it.
file(WRITE "${PLUGIN_WORK}/architectures.cmake"
     "set(CMAKE_TRITON_ARCHITECTURES \"80;90a;gfx942\" CACHE STRING \"\")\n")
plugin_configure("${PLUGIN_SOURCE_DIR}/bench/proof" "${build}" "-DTritonAOT_DIR=${PLUGIN_BUILD_DIR}"
                 "-DPROOF_PYTHON=${PROOF_PYTHON}" "-DTRITON_AOT_PYTHON=${PROOF_PYTHON}"
                 -C "${PLUGIN_WORK}/architectures.cmake")
plugin_run(COMMAND "${CMAKE_COMMAND}" --build "${build}" OUTPUT out)
message(STATUS "bench/proof built:\n${out}")

plugin_run(COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${build}" -R "^proof\\.equality$" -V
           OUTPUT out RESULT rc)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench/proof's equality test failed (${rc}); its CSV: ${build}/equality.csv")
elseif(out MATCHES "\\*\\*\\*Skipped|Not Run")
  message(STATUS "PROOF-SKIP: bench/proof's equality test was skipped")
elseif(NOT out MATCHES "100% tests passed")
  message(FATAL_ERROR "bench/proof's equality test did not pass")
endif()
