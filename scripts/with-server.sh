#!/usr/bin/env bash
# Runs a command with WPV_URL pointing at a WebPlotViz server: the one at WPV_URL when set,
# otherwise one started here against MONGODB_URI / AMQP_URL in a database of its own, with the
# job gateway's workers and hpc-bridge unless WPV_GATEWAY=0; all stopped afterwards. Used by
# e2e/run.sh, clients/python/run_tests.sh and bench/python-client/run.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

if [[ -z "${WPV_URL:-}" ]]; then
  : "${MONGODB_URI:?set WPV_URL, or MONGODB_URI and AMQP_URL for a server started here}"
  : "${AMQP_URL:?set WPV_URL, or MONGODB_URI and AMQP_URL for a server started here}"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  data_dir="$(mktemp -d "${WPV_TEST_DIR:-/tmp}/wpv-server.XXXXXX")"
  # The server, workers and bridge share the data directory and a private queue prefix.
  export MONGODB_URI="${MONGODB_URI%/*}/wpvserver_$(basename "$data_dir" | tr -c 'A-Za-z0-9\n' _)"
  export DATA_DIR="$data_dir" JOB_QUEUE_PREFIX="wpvsrv.$(basename "$data_dir")" HPC_POLL_MS=200 HPC_PROGRESS_MS=250
  # Every test account (one per e2e or python test) is registered from 127.0.0.1.
  export REGISTRATIONS_PER_ADDRESS="${REGISTRATIONS_PER_ADDRESS:-100000}"
  (cd "$root" && PORT="$port" exec node --import tsx server/src/main.ts) >"$data_dir/server.log" 2>&1 &
  server_pid=$!
  pids+=("$server_pid")
  if [[ "${WPV_GATEWAY:-1}" != 0 ]]; then
    for service in workers hpc-bridge; do
      (cd "$root" && READY_FILE="$data_dir/$service.ready" exec node --import tsx "$service/src/main.ts") >"$data_dir/$service.log" 2>&1 &
      pids+=($!)
    done
  fi
  export WPV_URL="http://127.0.0.1:$port"
  for _ in $(seq 1 120); do
    curl -fsS "$WPV_URL/api/v1/health" >/dev/null 2>&1 && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$data_dir/server.log"; echo "with-server: the server exited" >&2; exit 1; }
    sleep 0.5
  done
fi

status=0
"$@" || status=$?
exit "$status"
