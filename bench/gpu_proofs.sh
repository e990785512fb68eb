#!/bin/bash
# The GPU-machine proofs of the toolchain in one session, from an installed toolchain carried
# there (docs/benchmarks.md): each part's output goes to $OUT/<part>.log, its figures to CSVs,
# and a summary line per part to stdout. Built with the machine's own Python and Triton.
#
#   cmake --install build/default --prefix build/device-install --strip   # here, then carry it
#   OUT=/tmp/proofs bash bench/gpu_proofs.sh floor upstream torch torchbench   # there
#
# Parts:
#   floor       bench/floor_bench.py at -j 16 and -j 2 (issue 30: builds against their floor)
#   upstream    upstream Triton's test_aot.py through the compatibility front (build/upstream/
#               holds the test file and, where pytest is not installed, a pytest to import)
#   torch       Torch.ops_gpu: the PyTorch operators against Triton's own launches
#   torchbench  bench/torch_ops_bench.py: first call and per-call overhead (after `torch`)
set -u
OUT=${OUT:-/tmp/gpu-proofs}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
INSTALL=${INSTALL:-$ROOT/build/device-install}
PYTHON=${PYTHON:-$(command -v python3)}
export TRITON_AOT_PYTHON=$PYTHON
WORK=${WORK:-/tmp/gpu-proofs-work}
mkdir -p "$WORK"

part() {
  local name=$1
  shift
  local started=$SECONDS
  (cd "$ROOT" && "$@") >"$OUT/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc in $((SECONDS - started)) s"
  tail -n 12 "$OUT/$name.log"
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/== GPU: /'
for name in "$@"; do
  case $name in
  floor)
    part floor "$PYTHON" bench/floor_bench.py --tool "$INSTALL/bin/triton-aot-cc" \
      --python "$PYTHON" --jobs 16 2 --repeat ${FLOOR_REPEAT:-3} --flows ${FLOOR_FLOWS:-edited fresh pool coldpool} \
      --csv "$OUT/floor.csv" ;;
  upstream)
    part upstream env PYTHONPATH="$ROOT/build/upstream/pytest-lib" "$PYTHON" \
      tests/upstream/run_upstream_test_aot.py --mode device --bin-dir "$INSTALL/bin" \
      --test-aot "$ROOT/build/upstream/test_aot.py" ;;
  torch)
    part torch "$PYTHON" tests/torch/torch_ops_test.py \
      --tritonaot-dir "$INSTALL/lib/cmake/TritonAOT" --work "$WORK/kops" --require-gpu "$PYTHON" ;;
  torchbench)
    part torchbench "$PYTHON" bench/torch_ops_bench.py --library "$WORK/kops/build/kops_torch.so" \
      --work "$WORK/kops-bench" --runs 20 --csv "$OUT/torch_ops.csv" ;;
  *)
    echo "unknown part '$name' (floor, upstream, torch, torchbench)" >&2
    exit 2 ;;
  esac
done
