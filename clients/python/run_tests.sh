#!/usr/bin/env bash
# The Python client's tests (pytest) against a real server. Uses WPV_URL when set; otherwise
# starts the API server with the job gateway's workers and hpc-bridge (as e2e/run.sh does)
# against MONGODB_URI / AMQP_URL (scripts/test.sh provides them) and stops them afterwards.
# The package and pytest go into a venv under .local/ (kept between runs; the package is
# reinstalled from clients/python each run). Arguments go to pytest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

venv="$root/.local/venv-python-client"
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check ./clients/python'[all]' pytest

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

if [[ -z "${WPV_URL:-}" ]]; then
  : "${MONGODB_URI:?set WPV_URL, or MONGODB_URI and AMQP_URL for a server started here}"
  : "${AMQP_URL:?set WPV_URL, or MONGODB_URI and AMQP_URL for a server started here}"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  data_dir="$(mktemp -d "${WPV_TEST_DIR:-/tmp}/wpv-python.XXXXXX")"
  # A database of its own, and a private queue prefix shared by the server, workers and bridge.
  export MONGODB_URI="${MONGODB_URI%/*}/wpvpython_$(basename "$data_dir" | tr -c 'A-Za-z0-9\n' _)"
  export DATA_DIR="$data_dir" JOB_QUEUE_PREFIX="wpvpy.$(basename "$data_dir")" HPC_POLL_MS=200
  PORT="$port" node --import tsx server/src/main.ts >"$data_dir/server.log" 2>&1 &
  server_pid=$!
  pids+=("$server_pid")
  for service in workers hpc-bridge; do
    READY_FILE="$data_dir/$service.ready" node --import tsx "$service/src/main.ts" >"$data_dir/$service.log" 2>&1 &
    pids+=($!)
  done
  export WPV_URL="http://127.0.0.1:$port"
  for _ in $(seq 1 120); do
    curl -fsS "$WPV_URL/api/v1/health" >/dev/null 2>&1 && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$data_dir/server.log"; echo "python client tests: the server exited" >&2; exit 1; }
    sleep 0.5
  done
fi

echo "python client tests against $WPV_URL"
cd clients/python
status=0
"$venv/bin/python" -m pytest -p no:cacheprovider "$@" || status=$?
# pytest exits 5 when it collected no tests: a suite that tests nothing fails.
((status != 5)) || echo "python client tests: pytest collected no tests" >&2
exit $((status == 5 ? 1 : status))
