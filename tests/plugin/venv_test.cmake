# Plugin.venv_made_at_configure: with neither TRITON_AOT_PYTHON, an environment with Triton, nor
# the interpreter triton-aot was built with, configure makes <build>/triton-aot-venv with the
# pinned Triton, and the compiles use it; when that fails, configure stops with the fix. An
# active virtual environment (VIRTUAL_ENV) with Triton is taken before any of those; one with a
# Triton older than 3.5 is passed over, saying why. A fake base python (a shell
# script) stands in for `python3 -m venv` and the venv's pip, so nothing is downloaded.
include("${CMAKE_CURRENT_LIST_DIR}/plugin_common.cmake")

file(REMOVE_RECURSE "${PLUGIN_WORK}")
set(fake "${PLUGIN_WORK}/fake-python3")
file(WRITE "${fake}" [=[#!/bin/sh
# python3 -m venv DIR: a venv whose pip records its arguments and whose Triton is 3.9.0 and builds
# cuda:80 and cuda:90a.
[ "$1" = "-m" ] && [ "$2" = "venv" ] || exit 2
[ -n "$FAKE_VENV_FAILS" ] && { echo "Error: ensurepip is not available" >&2; exit 1; }
mkdir -p "$3/bin"
cat > "$3/bin/python" <<'EOS'
#!/bin/sh
case "$*" in
  "-m pip install"*) echo "$*" > "$(dirname "$0")/../pip-args"; exit 0;;
  *"import triton"*) echo 3.9.0; exit 0;;
  *"triton_adapter.py --targets") printf 'cuda:80\ncuda:90a\n'; exit 0;;
esac
exit 2
EOS
chmod +x "$3/bin/python"
]=])
file(CHMOD "${fake}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)

set(build "${PLUGIN_WORK}/build")
plugin_run(COMMAND "${CMAKE_COMMAND}" -S "${PLUGIN_PROJECTS}/venv" -B "${build}" -G Ninja
                   "-DCMAKE_MAKE_PROGRAM=${PLUGIN_NINJA}" "-DCMAKE_C_COMPILER=${PLUGIN_C_COMPILER}"
                   "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}" "-DTRITON_AOT_BASE_PYTHON=${fake}"
           OUTPUT out)
string(REGEX REPLACE "[ \n]+" " " out "${out}")   # CMake wraps long messages
set(venv "${build}/triton-aot-venv")
plugin_expect("${out}" "creating ${venv} with triton==3\\.9\\.0" "the configure output")
plugin_expect("${out}" "Triton 3\\.9\\.0 at ${venv}/bin/python" "the configure output")
file(READ "${venv}/pip-args" pip_args)
plugin_expect("${pip_args}" "^-m pip install .*triton==3\\.9\\.0" "what the venv's pip was asked")
file(READ "${build}/build.ninja" rules)
plugin_expect("${rules}" "--python ${venv}/bin/python" "the compile rule")

# When the venv cannot be made: an error that says how to point at a Python with Triton.
file(REMOVE_RECURSE "${build}")
set(ENV{FAKE_VENV_FAILS} 1)
plugin_run(COMMAND "${CMAKE_COMMAND}" -S "${PLUGIN_PROJECTS}/venv" -B "${build}" -G Ninja
                   "-DCMAKE_MAKE_PROGRAM=${PLUGIN_NINJA}" "-DCMAKE_C_COMPILER=${PLUGIN_C_COMPILER}"
                   "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}" "-DTRITON_AOT_BASE_PYTHON=${fake}"
           OUTPUT out RESULT rc)
string(REGEX REPLACE "[ \n]+" " " out "${out}")
if(rc EQUAL 0)
  message(FATAL_ERROR "configure succeeded although no venv could be made:\n${out}")
endif()
plugin_expect("${out}" "could not make ${venv}" "the configure output")
plugin_expect("${out}" "no Python with Triton: set TRITON_AOT_PYTHON" "the configure error")
plugin_expect("${out}" "CMakeLists\\.txt:[0-9]+ \\(triton_add_library\\)" "the call stack")

# The user's active environment comes first: its interpreter, when it has Triton 3.5 or newer.
unset(ENV{FAKE_VENV_FAILS})
function(fake_environment dir triton_version)
  file(MAKE_DIRECTORY "${dir}/bin")
  file(WRITE "${dir}/bin/python" "#!/bin/sh
case \"$*\" in
  *\"import triton\"*) echo ${triton_version}; exit 0;;
  *\"triton_adapter.py --targets\") printf 'cuda:80\\n'; exit 0;;
esac
exit 2
")
  file(CHMOD "${dir}/bin/python" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endfunction()
fake_environment("${PLUGIN_WORK}/users-env" 3.9.0)
fake_environment("${PLUGIN_WORK}/old-env" 3.4.0)

file(REMOVE_RECURSE "${build}")
set(ENV{VIRTUAL_ENV} "${PLUGIN_WORK}/users-env")
plugin_run(COMMAND "${CMAKE_COMMAND}" -S "${PLUGIN_PROJECTS}/venv" -B "${build}" -G Ninja
                   "-DCMAKE_MAKE_PROGRAM=${PLUGIN_NINJA}" "-DCMAKE_C_COMPILER=${PLUGIN_C_COMPILER}"
                   "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}" "-DTRITON_AOT_BASE_PYTHON=${fake}"
           OUTPUT out)
string(REGEX REPLACE "[ \n]+" " " out "${out}")
plugin_expect("${out}" "Triton 3\\.9\\.0 at ${PLUGIN_WORK}/users-env/bin/python \\(the active environment \\(VIRTUAL_ENV\\)\\)"
              "the configure output")
file(READ "${build}/build.ninja" rules)
plugin_expect("${rules}" "--python ${PLUGIN_WORK}/users-env/bin/python" "the compile rule")

# One whose Triton is too old is passed over (here: down to the venv made at configure).
file(REMOVE_RECURSE "${build}")
set(ENV{VIRTUAL_ENV} "${PLUGIN_WORK}/old-env")
plugin_run(COMMAND "${CMAKE_COMMAND}" -S "${PLUGIN_PROJECTS}/venv" -B "${build}" -G Ninja
                   "-DCMAKE_MAKE_PROGRAM=${PLUGIN_NINJA}" "-DCMAKE_C_COMPILER=${PLUGIN_C_COMPILER}"
                   "-DCMAKE_PREFIX_PATH=${PLUGIN_TOOLCHAIN}" "-DTRITON_AOT_BASE_PYTHON=${fake}"
           OUTPUT out)
string(REGEX REPLACE "[ \n]+" " " out "${out}")
plugin_expect("${out}" "passing over ${PLUGIN_WORK}/old-env/bin/python \\(the active environment \\(VIRTUAL_ENV\\)\\): Triton 3\\.4\\.0 is older than 3\\.5"
              "the configure output")
plugin_expect("${out}" "Triton 3\\.9\\.0 at ${venv}/bin/python" "the configure output")
unset(ENV{VIRTUAL_ENV})
