#!/usr/bin/env bash
# Interpolation (MI-MDS) against the full pipeline on the same planted families (issue 18):
# stress over all pairs, ARI against the families, time and peak memory per stage.
# Uses .local/venv-clustering (numpy, scipy, scikit-learn; made by bench/clustering/run.sh)
# and the kernels in --bin (default kernels/build/bin). Writes bench/results/interp-n<N>-s<sample>.md.
#   bash bench/interp/run.sh [--n 2000] [--sample 400] [--k 10] [--seed 1] [--bin DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/.local/venv-clustering"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy scipy scikit-learn
fi
exec "$venv/bin/python" "$root/bench/interp/run.py" "$@"
