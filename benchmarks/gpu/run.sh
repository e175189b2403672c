#!/usr/bin/env bash
# The GPU checks in one run on a CUDA machine (issue 53), writing what it measured into $OUT (8 files at most):
#
#   machine.txt     nvidia-smi, torch, CPU
#   bench.jsonl     bench selfplay --device cuda: the 4 x 64 and 5 x 128 networks at 64, 256 and 1,024 games in
#                   flight (one JSON line each; run first, alone on the machine)
#   bench.log       their progress and errors
#   gpu_tests.log   python -m pytest tests/test_gpu.py
#   notebooks.log   the eleven notebooks under nbval with CUDA visible, one process each
#   cells.tar.gz    every notebook cell's new outputs and time (benchmarks/gpu/record_cells.py), for
#                   benchmarks/gpu/compare_cells.py to set beside the stored CPU outputs
#   capstone.log    benchmarks/capstone.py: notebook 10's settings for CAPSTONE_MINUTES of training on the GPU, then
#                   its agent against Kaggle's negamax (capstone.json inside cells.tar.gz's folder)
#
# The tests, the notebooks and the capstone run side by side (16 cores; the notebooks on the CPU, the capstone on
# the GPU); each part has its own time limit, so that one that hangs leaves the others' results.
#
#   bash benchmarks/gpu/run.sh          # OUT=folder (default /tmp/gpu_out); .whl/ holds wheels the machine lacks
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg PYTHONPATH="$PWD"
if compgen -G ".whl/*.whl" >/dev/null; then  # the notebooks' and Kaggle's packages, carried as wheels
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH="/tmp/site:$PWD"
fi
started=$(date +%s)
elapsed() { echo "$(($(date +%s) - started)) s"; }
{
  nvidia-smi
  python3 -c "import sys, torch; print(sys.version); print('torch', torch.__version__, 'cuda', torch.version.cuda, \
torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no CUDA GPU')"
  lscpu | grep -E "Model name|^CPU\(s\)"
} >"$OUT/machine.txt" 2>&1

# 1. throughput, alone on the machine
for preset in connect_four_fast connect_four_fast_5x128; do
  for games in 64 256 1024; do
    timeout "${BENCH_TIMEOUT:-45}" python3 -m alphazero_lib bench selfplay --preset "$preset" --games "$games" \
      --seconds "${BENCH_SECONDS:-20}" --device "${DEVICE:-cuda}" --no-progress --json >>"$OUT/bench.jsonl" \
      2>>"$OUT/bench.log" || echo "bench $preset $games: exit $?" >>"$OUT/bench.log"
    echo "bench $preset $games games done at $(elapsed)" >>"$OUT/bench.log"
  done
done
echo "bench done at $(elapsed)"

# 2. the tests, the notebooks and the capstone, side by side
cells=/tmp/gpu_cells
rm -rf "$cells" && mkdir -p "$cells"
(
  timeout "${PART_TIMEOUT:-330}" python3 -m pytest tests/test_gpu.py -o addopts="" -n 0 -p no:cacheprovider -v -rs
  echo "exit $? at $(elapsed)"
) >"$OUT/gpu_tests.log" 2>&1 &
(
  ALPHAZERO_CELL_RECORDS="$cells" timeout "${PART_TIMEOUT:-330}" python3 -m pytest notebooks -p no:cacheprovider \
    -n "${NOTEBOOK_WORKERS:-11}" -p benchmarks.gpu.record_cells -q -rf
  echo "exit $? at $(elapsed)"
) >"$OUT/notebooks.log" 2>&1 &
(
  mkdir -p /tmp/empty_home
  timeout "${PART_TIMEOUT:-330}" python3 benchmarks/capstone.py --home /tmp/empty_home \
    --minutes "${CAPSTONE_MINUTES:-2.5}" --games "${CAPSTONE_EPISODES:-6}" --random-games 2 --out "$cells/capstone"
  echo "exit $? at $(elapsed)"
) >"$OUT/capstone.log" 2>&1 &
wait
tar czf "$OUT/cells.tar.gz" -C /tmp gpu_cells
echo "all done at $(elapsed)"
tail -n 3 "$OUT/gpu_tests.log" "$OUT/notebooks.log" "$OUT/capstone.log"
