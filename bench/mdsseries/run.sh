#!/usr/bin/env bash
# Stock time-series benchmark (not part of the test suite): mdsseries against what an
# analyst would write with NumPy, scikit-learn and SciPy, on generated markets, in the
# same run. Makes .local/venv-mdsseries (numpy, scipy, scikit-learn) on first use and
# builds the kernels if needed. Writes bench/results/mdsseries.md.
#   bash bench/mdsseries/run.sh [--sizes 500,2000,7000] [--bin DIR] [--steps ...] (see run.py --help)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/.local/venv-mdsseries"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy scipy scikit-learn
fi
if [[ " $* " != *" --bin "* && ! -x "$root/kernels/build/bin/mdsseries" ]]; then bash "$root/kernels/build.sh"; fi
exec "$venv/bin/python" "$root/bench/mdsseries/run.py" "$@"
