#!/usr/bin/env bash
# Installs what building and testing triton-aot needs, and nothing that is already there:
#   - Debian packages: compilers, CMake, Ninja, LLVM 19 (Object library), nlohmann/json, CLI11,
#     GoogleTest, zstd;
#   - a Python virtual environment (.venv by default) with the pinned Triton from requirements.txt
#     (and requirements-dev.txt for the tests).
# Idempotent: a second run only checks, in about a second.
#
# Usage: tools/bootstrap.sh [--dev]     (--dev: also the test-only Python packages)
# Environment: TRITON_AOT_VENV (default: <repo>/.venv), TRITON_AOT_BASE_PYTHON (default: python3).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${TRITON_AOT_VENV:-$repo/.venv}
base_python=${TRITON_AOT_BASE_PYTHON:-python3}
dev=0
[[ "${1:-}" == "--dev" ]] && dev=1

say() { printf 'bootstrap: %s\n' "$*"; }

# --- Debian packages -------------------------------------------------------------------------
packages=(build-essential cmake ninja-build git pkg-config python3-venv
          llvm-19-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libzstd-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Python environment with the pinned Triton -----------------------------------------------
reqs=("$repo/requirements.txt")
((dev)) && reqs+=("$repo/requirements-dev.txt")
stamp_want=$(cat "${reqs[@]}" | sha256sum | cut -c1-16)
stamp_file=$venv/.triton-aot-requirements
if [[ ! -x "$venv/bin/python" ]]; then
  say "creating Python environment $venv"
  "$base_python" -m venv "$venv"
fi
if [[ ! -f "$stamp_file" ]] || [[ "$(cat "$stamp_file")" != "$stamp_want" ]]; then
  say "installing $(cat "${reqs[@]}" | grep -v '^#' | xargs) into $venv"
  args=()
  for r in "${reqs[@]}"; do args+=(-r "$r"); done
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${args[@]}"
  echo "$stamp_want" > "$stamp_file"
fi
"$venv/bin/python" -c 'import triton; print("bootstrap: Triton", triton.__version__, "in", end=" ")' && echo "$venv"
