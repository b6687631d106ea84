#!/usr/bin/env bash
# parasail_venv.sh [SCRIPT ARGS...]: makes the Python venv .local/venv-swg with parasail
# and numpy (from PyPI) if it is missing, then runs SCRIPT with it; with no SCRIPT,
# prints the venv's python. Used by the swg-parasail test and bench/swg/run.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
venv="$root/.local/venv-swg"
if ! "$venv/bin/python" -c "import parasail, numpy" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet parasail numpy ||
    { echo "parasail_venv.sh: could not install parasail and numpy into $venv (is PyPI reachable?)" >&2; exit 1; }
fi
if (($# == 0)); then
  echo "$venv/bin/python"
else
  exec "$venv/bin/python" "$@"
fi
