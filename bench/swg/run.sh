#!/usr/bin/env bash
# SWG benchmark (not part of the test suite): all pairs of 16s-4640.fasta with the
# swg program (1 thread, 2 threads, 2 ranks) against parasail on a sample of the
# same pairs, measured in the same run. Writes bench/results/swg.md.
#   bash bench/swg/run.sh            (SWG_BIN=path/to/swg to use another build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# .local/venv-swg with parasail and numpy, made on first use (shared with the swg-parasail test).
python="$(bash "$root/kernels/swg/tests/parasail_venv.sh")"
swg="${SWG_BIN:-$root/kernels/build/bin/swg}"
if [[ ! -x "$swg" ]]; then
  bash "$root/kernels/build.sh"
fi
exec "$python" "$root/bench/swg/bench_swg.py" --swg "$swg" \
  --fasta "$root/../shared/data/16s-4640.fasta" --results "$root/bench/results/swg.md" "$@"
