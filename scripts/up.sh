#!/usr/bin/env bash
# One command from a fresh clone to a running platform with demo plots:
# installs what is missing, starts FerretDB + RabbitMQ (unless MONGODB_URI and
# AMQP_URL point elsewhere), builds the client, starts the API and loads demos.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WPV_ROOT"

bash scripts/install.sh
export PORT="${PORT:-8080}"
mkdir -p "$DATA_DIR/logs"

if [[ -z "${MONGODB_URI:-}" || -z "${AMQP_URL:-}" ]]; then
  say "starting the embedded store and broker (state in $DATA_DIR/stack)"
  bash scripts/stack.sh start "$DATA_DIR/stack" "${MONGO_PORT:-27017}" "${AMQP_PORT:-5672}"
  source "$DATA_DIR/stack/env"
fi

if [[ ! -f client/dist/index.html ]] || [[ -n "$(find client/src client/index.html schema/src -newer client/dist/index.html -print -quit)" ]]; then
  say "building the web client"
  npm run build -w client --silent
fi

if curl -fsS "http://127.0.0.1:$PORT/api/v1/health" >/dev/null 2>&1; then
  say "the API is already running on port $PORT"
else
  port_open "$PORT" && die "port $PORT is taken by another program; set PORT"
  say "starting the API server (log: $DATA_DIR/logs/server.log)"
  setsid node --import tsx server/src/main.ts >>"$DATA_DIR/logs/server.log" 2>&1 </dev/null &
  echo $! >"$DATA_DIR/server.pid"
  for _ in $(seq 1 120); do
    curl -fsS "http://127.0.0.1:$PORT/api/v1/health" >/dev/null 2>&1 && break
    kill -0 "$(cat "$DATA_DIR/server.pid")" 2>/dev/null || die "the server exited; see $DATA_DIR/logs/server.log"
    sleep 0.5
  done
fi

# The analytics programs the gateway runs (an up-to-date build takes seconds).
say "building the analytics programs (first time: a few minutes; log: $DATA_DIR/logs/kernels-build.log)"
bash kernels/build.sh >"$DATA_DIR/logs/kernels-build.log" 2>&1 || die "the kernels did not build; see $DATA_DIR/logs/kernels-build.log"

# The job gateway: pipeline worker and hpc-bridge (HPC_BACKEND=local|slurm).
for service in workers hpc-bridge; do
  if [[ -f "$DATA_DIR/$service.pid" ]] && kill -0 "$(cat "$DATA_DIR/$service.pid")" 2>/dev/null; then continue; fi
  say "starting the $service (log: $DATA_DIR/logs/$service.log)"
  READY_FILE="$DATA_DIR/$service.ready" setsid node --import tsx "$service/src/main.ts" >>"$DATA_DIR/logs/$service.log" 2>&1 </dev/null &
  echo $! >"$DATA_DIR/$service.pid"
done

say "loading demo plots"
node --import tsx server/src/cli/demo.ts
echo
echo "WebPlotViz is running: http://localhost:$PORT"
echo "Stop it with: bash scripts/down.sh"
