#!/usr/bin/env bash
# Installs what building and testing triton-aot needs, and nothing that is already there:
#   - Debian packages: compilers, CMake, Ninja, LLVM 19 (Object library), nlohmann/json, CLI11,
#     GoogleTest, zstd, xxHash, hiredis, libcurl, OpenSSL (and with --dev redis-server and nginx,
#     the remote cache tests' servers, and clang for the fuzz targets);
#   - a Python virtual environment (.venv by default) with the pinned Triton from requirements.txt
#     (and requirements-dev.txt for the tests);
#   - with --dev, .venv-triton-3.6.0 too, and with --versions one .venv-triton-<version> for each
#     release of tools/triton-versions.txt: the integration tests run in them as well.
# Idempotent: a second run only checks, in about a second.
#
# Usage: tools/bootstrap.sh [--dev | --versions]
#   --dev       also the test-only packages (Python, redis-server, nginx), and Triton 3.6.0
#               beside the default
#   --versions  as --dev, and every supported Triton (the `versions` test preset)
# Environment: TRITON_AOT_VENV (default: <repo>/.venv), TRITON_AOT_BASE_PYTHON (default: python3).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${TRITON_AOT_VENV:-$repo/.venv}
base_python=${TRITON_AOT_BASE_PYTHON:-python3}
dev=0
other_versions=()
case "${1:-}" in
  --dev) dev=1; other_versions=(3.6.0) ;;
  --versions) dev=1; mapfile -t other_versions < <(grep -E '^[0-9]' "$repo/tools/triton-versions.txt") ;;
  "") ;;
  *) echo "usage: tools/bootstrap.sh [--dev | --versions]" >&2; exit 2 ;;
esac

say() { printf 'bootstrap: %s\n' "$*"; }

# --- Debian packages -------------------------------------------------------------------------
packages=(build-essential cmake ninja-build git pkg-config python3-venv
          llvm-19-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libzstd-dev
          libxxhash-dev libhiredis-dev libcurl4-openssl-dev libssl-dev)
# The remote cache tests' servers (tests/cache_servers starts its own, on free ports).
((dev)) && packages+=(redis-server nginx-light)
# The fuzz targets (docs/fuzzing.md): clang with libFuzzer and the sanitizer runtimes.
((dev)) && packages+=(clang libclang-rt-14-dev)
# examples/hip_runtime, which the tests build: the HIP runtime's headers and libamdhip64 (no hipcc).
((dev)) && packages+=(libamdhip64-dev)
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
  # Installing redis-server or nginx may start it as a system service on its usual port; the
  # tests start servers of their own, so stop the ones installed just now.
  [[ " ${missing[*]} " == *" redis-server "* ]] && { $sudo service redis-server stop || true; } >/dev/null 2>&1
  [[ " ${missing[*]} " == *" nginx-light "* ]] && { $sudo service nginx stop || true; } >/dev/null 2>&1
fi

# --- Python environments ---------------------------------------------------------------------
# make_venv <dir> <requirement files...>: creates <dir> once, (re)installs when the files change.
make_venv() {
  local dir=$1; shift
  local stamp_want stamp_file
  stamp_want=$(cat "$@" | sha256sum | cut -c1-16)
  stamp_file=$dir/.triton-aot-requirements
  if [[ ! -x "$dir/bin/python" ]]; then
    say "creating Python environment $dir"
    "$base_python" -m venv "$dir"
  fi
  if [[ ! -f "$stamp_file" ]] || [[ "$(cat "$stamp_file")" != "$stamp_want" ]]; then
    say "installing $(cat "$@" | grep -v '^#' | xargs) into $dir"
    local args=() r
    for r in "$@"; do args+=(-r "$r"); done
    "$dir/bin/python" -m pip install -q --disable-pip-version-check "${args[@]}"
    echo "$stamp_want" > "$stamp_file"
  fi
  "$dir/bin/python" -c 'import triton; print("bootstrap: Triton", triton.__version__, "in", end=" ")' && echo "$dir"
}

reqs=("$repo/requirements.txt")
((dev)) && reqs+=("$repo/requirements-dev.txt")
make_venv "$venv" "${reqs[@]}"
for version in "${other_versions[@]}"; do
  pin=$(mktemp)
  echo "triton==$version" > "$pin"
  make_venv "$(dirname "$venv")/.venv-triton-$version" "$pin"
  rm -f "$pin"
done
