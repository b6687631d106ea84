#!/usr/bin/env bash
# DA-MDS benchmark (not part of the test suite): damds against scikit-learn's SMACOF in
# the same run. Makes .local/venv-damds with numpy and scikit-learn on first use and
# builds the kernels if needed. Writes bench/results/damds.md.
#   bash bench/damds/run.sh [--sizes 2000,4000,8000] [--large 100000] [--damds PATH]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/.local/venv-damds"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy scikit-learn
fi
[[ -x "$root/kernels/build/bin/damds" ]] || bash "$root/kernels/build.sh"
exec "$venv/bin/python" "$root/bench/damds/run.py" "$@"
