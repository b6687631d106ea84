#!/usr/bin/env bash
# End-to-end tests in headless Chromium. Uses the server at WPV_URL when set; otherwise
# starts one on a free port against MONGODB_URI / AMQP_URL (as scripts/test.sh provides)
# and stops it afterwards (with the job gateway's workers and hpc-bridge). Test files may be given as
# arguments (default: all of e2e/tests/). Screenshots of failed steps go to e2e/artifacts/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[[ -f client/dist/index.html ]] || npm run build -w client --silent

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

if [[ -z "${WPV_URL:-}" ]]; then
  : "${MONGODB_URI:?set WPV_URL, or MONGODB_URI and AMQP_URL for a server started here}"
  : "${AMQP_URL:?set WPV_URL, or MONGODB_URI and AMQP_URL for a server started here}"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  data_dir="$(mktemp -d /tmp/wpv-e2e.XXXXXX)"
  # The job gateway's workers and hpc-bridge share the data directory and a private queue prefix.
  export DATA_DIR="$data_dir" JOB_QUEUE_PREFIX="wpve2e.$(basename "$data_dir")" HPC_POLL_MS=200
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
    kill -0 "$server_pid" 2>/dev/null || { cat "$data_dir/server.log"; echo "e2e: the server exited" >&2; exit 1; }
    sleep 0.5
  done
fi

echo "e2e against $WPV_URL"
node --test --test-concurrency=1 "${@:-e2e/tests/}"
