#!/usr/bin/env bash
# One command from a fresh clone to a running platform with demo plots:
# installs what is missing, builds the client, and runs the API, the job workers,
# the hpc-bridge and (unless MONGODB_URI and AMQP_URL point elsewhere) the embedded
# FerretDB and RabbitMQ under a project-local supervisord that restarts whatever
# crashes (scripts/supervisor.sh); loads the demos and prints the URL.
# Settings: PORT, DATA_DIR, AMQP_PORT, DIST_PORT (the embedded broker's ports), MONGO_PORT
# (the embedded store's port; by default it has none, only a socket in $DATA_DIR/stack that
# no other local user can open), KERNELS_BIN (prebuilt analytics programs: nothing is built),
# DEMOS=0 (no demo plots).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WPV_ROOT"

bash scripts/install.sh
export PORT="${PORT:-8080}"
mkdir -p "$DATA_DIR/logs"
# The store, the broker's password, every user's job files: no other local user may read them
# (made by an older version with the default umask, perhaps; the services write with umask 077).
chmod 700 "$DATA_DIR"
supervised=false
bash scripts/supervisor.sh ctl pid >/dev/null 2>&1 && supervised=true

stack_ports=()
if [[ -z "${MONGODB_URI:-}" || -z "${AMQP_URL:-}" ]]; then
  stack_ports=("${MONGO_PORT:-unix}" "${AMQP_PORT:-5672}")
  if ! $supervised; then
    for port in "${stack_ports[@]}"; do
      [[ "$port" == unix ]] && continue
      port_open "$port" && die "port $port is taken by another program; set MONGO_PORT and AMQP_PORT, or MONGODB_URI and AMQP_URL"
    done
  fi
  # The broker's password and the URLs the services get (state in $DATA_DIR/stack).
  bash scripts/stack.sh env "$DATA_DIR/stack" "${stack_ports[@]}" ${DIST_PORT:+"$DIST_PORT"}
  source "$DATA_DIR/stack/env"
fi
if ! $supervised && port_open "$PORT"; then die "port $PORT is taken by another program; set PORT"; fi

if [[ ! -f client/dist/index.html ]] || [[ -n "$(find client/src client/index.html schema/src -newer client/dist/index.html -print -quit)" ]]; then
  say "building the web client"
  npm run build -w client --silent
fi

if $supervised; then
  say "the platform's supervisor is already running: starting whatever is not"
else
  say "starting the services under supervisord (logs: $DATA_DIR/logs)"
fi
bash scripts/supervisor.sh start "${stack_ports[@]}"

# The supervisor starts the processes; wait until each serves.
ready() {
  local pid
  pid="$(bash scripts/supervisor.sh ctl pid "$1" 2>/dev/null)" || return 1
  [[ "$pid" != 0 && "$(cat "$DATA_DIR/supervisor/$1.ready" 2>/dev/null)" == "$pid" ]]
}
for _ in $(seq 1 240); do
  curl -fsS "http://127.0.0.1:$PORT/api/v1/health" >/dev/null 2>&1 && ready workers && ready hpc-bridge && break
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$PORT/api/v1/health" >/dev/null 2>&1 && ready workers && ready hpc-bridge || {
  bash scripts/supervisor.sh ctl status >&2 || true
  die "the services did not come up in 2 minutes; see $DATA_DIR/logs"
}

if [[ -z "${KERNELS_BIN:-}" ]]; then
  # The analytics programs the bridge runs (an up-to-date build takes seconds).
  say "building the analytics programs (first time: a few minutes; log: $DATA_DIR/logs/kernels-build.log)"
  bash kernels/build.sh >"$DATA_DIR/logs/kernels-build.log" 2>&1 || die "the kernels did not build; see $DATA_DIR/logs/kernels-build.log"
fi

if [[ "${DEMOS:-1}" == 0 ]]; then
  say "no demo plots (DEMOS=0)"
else
  say "loading demo plots"
  node --import tsx server/src/cli/demo.ts
fi
echo
echo "WebPlotViz is running: http://localhost:$PORT"
echo "Stop it with: bash scripts/down.sh"
