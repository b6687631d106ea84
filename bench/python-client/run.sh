#!/usr/bin/env bash
# Python client vs the raw requests + numpy.frombuffer path: 1M points uploaded and read back,
# in alternating paired rounds against one server. Writes bench/results/python-client.md.
#   bash bench/with-stack.sh bash bench/python-client/run.sh      (or with WPV_URL set)
# POINTS and ROUNDS override the defaults (1,000,000 and 3).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
venv="$root/.local/venv-python-client"
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "$root/clients/python"
# No jobs here: the gateway's pollers would only add noise.
WPV_GATEWAY=0 bash "$root/scripts/with-server.sh" "$venv/bin/python" "$here/bench.py" "$root/bench/results/python-client.md"
