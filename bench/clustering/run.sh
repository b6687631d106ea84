#!/usr/bin/env bash
# Clustering-accuracy benchmark (not part of the test suite): swg -> dapwc against
# average linkage, VSEARCH and CD-HIT-EST on planted families. Installs vsearch and
# cd-hit (Debian packages, bench-only) when missing, makes .local/venv-clustering with
# numpy, scipy and scikit-learn on first use and builds the kernels if needed.
# Writes bench/results/clustering.md.
#   bash bench/clustering/run.sh [--seeds 1,2,3,4,5] [--distances global,shorter,spidal] [--bin DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if ! command -v vsearch >/dev/null || ! command -v cd-hit-est >/dev/null; then
  flock /tmp/apt.lock apt-get install -y vsearch cd-hit
fi
venv="$root/.local/venv-clustering"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy scipy scikit-learn
fi
[[ -x "$root/kernels/build/bin/dapwc" && -x "$root/kernels/build/bin/swg" ]] || bash "$root/kernels/build.sh"
exec "$venv/bin/python" "$root/bench/clustering/run.py" "$@"
