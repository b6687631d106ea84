#!/usr/bin/env bash
# SWG benchmark (not part of the test suite): all pairs of 16s-4640.fasta with the
# swg program (1 thread, 2 threads, 2 ranks) against parasail on a sample of the
# same pairs, measured in the same run. Writes bench/results/swg.md.
#   bash bench/swg/run.sh            (SWG_BIN=path/to/swg to use another build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/.local/venv-swg"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet parasail numpy
fi
swg="${SWG_BIN:-$root/kernels/build/bin/swg}"
if [[ ! -x "$swg" ]]; then
  bash "$root/kernels/build.sh"
fi
exec "$venv/bin/python" "$root/bench/swg/bench_swg.py" --swg "$swg" \
  --fasta "$root/../shared/data/16s-4640.fasta" --results "$root/bench/results/swg.md" "$@"
