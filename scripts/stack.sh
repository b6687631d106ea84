#!/usr/bin/env bash
# Starts, stops or reports the embedded services: FerretDB (MongoDB wire protocol
# over SQLite files) and a project-local RabbitMQ broker.
#   stack.sh start|stop|status|env STATE_DIR MONGO_PORT AMQP_PORT [DIST_PORT]
#   stack.sh run ferretdb|rabbitmq STATE_DIR MONGO_PORT AMQP_PORT [DIST_PORT]
# `start` runs both in the background (pid files; the test suites use it), writes
# STATE_DIR/env with MONGODB_URI and AMQP_URL and is idempotent. `env` only writes
# STATE_DIR/env (and the broker's password and config); `run` runs one service in
# the foreground, for a process supervisor (scripts/supervisor.sh).
# DIST_PORT is the broker's Erlang distribution port (default AMQP_PORT + 20000).
# MONGO_PORT `unix`: the store listens on no port but on STATE_DIR/ferretdb.sock, which
# only its owner can open (FerretDB over SQLite has no authentication; any local user
# can reach a loopback port). Every port listens on 127.0.0.1 only (epmd too, where this
# broker starts it), and STATE_DIR is its owner's alone: it holds the store's files and
# the broker's password.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Files made here and by the services (store, broker, logs): readable by their owner only.
umask 077

usage="usage: stack.sh start|stop|status|env STATE_DIR MONGO_PORT AMQP_PORT [DIST_PORT], or stack.sh run ferretdb|rabbitmq STATE_DIR ..."
cmd="${1:?$usage}"
service=""
if [[ "$cmd" == run ]]; then
  service="${2:?$usage}"
  shift
fi
state="${2:?state dir}"
mongo_port="${3:?mongo port}"
amqp_port="${4:?amqp port}"
mkdir -p "$state"
chmod 700 "$state" # made by an older version with the default umask, perhaps
state="$(cd "$state" && pwd)"
# A restart without DIST_PORT reuses the one this state dir was started with.
dist_port="${5:-$(cat "$state/dist_port" 2>/dev/null || echo $((amqp_port + 20000)))}"

# Starting failed: show why, from the service's own log.
fail_with_log() {
  echo "--- last lines of $2" >&2
  tail -n 25 "$2" >&2 || true
  die "$1"
}

pid_alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

store_socket="$state/ferretdb.sock"
# store_open: the store accepts connections (on its socket, or its port).
store_open() {
  if [[ "$mongo_port" == unix ]]; then
    python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$store_socket" 2>/dev/null
  else
    port_open "$mongo_port"
  fi
}

# exec_ferretdb / exec_rabbitmq: become the service, in the foreground.
exec_ferretdb() {
  [[ -x "$FERRETDB_BIN" ]] || die "FerretDB is not built; run scripts/install.sh"
  if [[ "$mongo_port" == unix ]]; then
    ((${#store_socket} <= 107)) || die "the store's socket path $store_socket is over 107 bytes: use a shorter DATA_DIR, or MONGO_PORT=27017"
    store_open && die "$store_socket is served by another program"
    rm -f "$store_socket" # left by a killed FerretDB, which would not listen on it again
    exec "$FERRETDB_BIN" -listen "" -listen-unix "$store_socket" -data "$state/ferretdb"
  fi
  port_open "$mongo_port" && die "port $mongo_port is taken by another program; set MONGO_PORT or MONGODB_URI"
  exec "$FERRETDB_BIN" -listen "127.0.0.1:$mongo_port" -data "$state/ferretdb"
}

# The broker's user, password and config, made once per state dir: no default credentials.
prepare_rabbitmq() {
  ((dist_port <= 65535)) || die "no distribution port for AMQP port $amqp_port: pass DIST_PORT"
  echo "$dist_port" >"$state/dist_port"
  mkdir -p "$state/rabbitmq/home" "$state/rabbitmq/mnesia" "$state/rabbitmq/log"
  if [[ ! -s "$state/rabbitmq/password" ]]; then
    (umask 077 && head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$state/rabbitmq/password")
  fi
  local password
  password="$(cat "$state/rabbitmq/password")"
  # A worker holds a job's message, unacknowledged, while its stage runs (up to the stage time
  # limit) and through a store outage. The broker's default closes the channel after 30 minutes
  # and hands the message out again: a second worker would take up the stage the first still runs.
  local consumer_timeout_ms=$(((${JOB_STAGE_TIME_LIMIT:-86400} + 3600) * 1000))
  # Erlang distribution (remote code execution for whoever has the cookie) on loopback only, as AMQP.
  cat >"$state/rabbitmq/rabbitmq.conf" <<CONF
listeners.tcp.1 = 127.0.0.1:$amqp_port
distribution.listener.interface = 127.0.0.1
default_user = wpv
default_pass = $password
loopback_users = none
consumer_timeout = $consumer_timeout_ms
CONF
  chmod 600 "$state/rabbitmq/rabbitmq.conf" # an older one, rewritten, keeps its mode
  echo '[].' >"$state/rabbitmq/enabled_plugins"
}

# The packaged script stays in the foreground (its -detached mode starts nothing here)
# and stops the broker cleanly on SIGTERM.
exec_rabbitmq() {
  port_open "$amqp_port" && die "port $amqp_port is taken by another program; set AMQP_PORT or AMQP_URL"
  local rmq=/usr/lib/rabbitmq/bin/rabbitmq-server
  [[ -x "$rmq" ]] || die "RabbitMQ is not installed; run scripts/install.sh (Debian package rabbitmq-server)"
  prepare_rabbitmq
  # epmd, the Erlang port mapper, is started by the first broker on the host and shared
  # (port 4369): this keeps it on loopback when this broker is the one that starts it.
  HOME="$state/rabbitmq/home" \
  ERL_EPMD_ADDRESS=127.0.0.1 \
  RABBITMQ_NODENAME="wpv$amqp_port@localhost" \
  RABBITMQ_NODE_PORT="$amqp_port" \
  RABBITMQ_DIST_PORT="$dist_port" \
  RABBITMQ_MNESIA_BASE="$state/rabbitmq/mnesia" \
  RABBITMQ_LOG_BASE="$state/rabbitmq/log" \
  RABBITMQ_CONFIG_FILE="$state/rabbitmq/rabbitmq" \
  RABBITMQ_ENABLED_PLUGINS_FILE="$state/rabbitmq/enabled_plugins" \
    exec "$rmq"
}

# start_service NAME SECONDS OPEN: runs `stack.sh run NAME` in a session of its own, unless
# it already runs; waits until the command OPEN succeeds (it accepts connections).
start_service() {
  if pid_alive "$state/$1.pid" && $3; then return; fi
  setsid bash "${BASH_SOURCE[0]}" run "$1" "$state" "$mongo_port" "$amqp_port" "$dist_port" \
    >>"$state/$1.log" 2>&1 </dev/null &
  echo $! >"$state/$1.pid"
  local i
  for ((i = 0; i < $2 * 4; i++)); do
    $3 && return
    sleep 0.25
  done
  fail_with_log "$1 did not start" "$state/$1.log"
}

write_env() {
  prepare_rabbitmq
  local store_address="127.0.0.1:$mongo_port"
  # The driver takes a socket's path, URL-encoded, for the host.
  [[ "$mongo_port" == unix ]] && store_address="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$store_socket")"
  cat >"$state/env" <<ENV
export MONGODB_URI='mongodb://$store_address/webplotviz'
export AMQP_URL='amqp://wpv:$(cat "$state/rabbitmq/password")@127.0.0.1:$amqp_port'
ENV
  chmod 600 "$state/env" # holds the broker's password
}

stop_one() {
  local pidfile="$state/$1.pid"
  if pid_alive "$pidfile"; then
    local pid
    pid="$(cat "$pidfile")"
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid"
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

case "$cmd" in
  start)
    start_service ferretdb 30 store_open
    start_service rabbitmq 90 "port_open $amqp_port"
    write_env
    ;;
  env) write_env ;;
  run)
    case "$service" in
      ferretdb) exec_ferretdb ;;
      rabbitmq) exec_rabbitmq ;;
      *) die "$usage" ;;
    esac
    ;;
  stop)
    stop_one rabbitmq
    stop_one ferretdb
    ;;
  status)
    for svc in ferretdb rabbitmq; do
      if pid_alive "$state/$svc.pid"; then echo "$svc: running (pid $(cat "$state/$svc.pid"))"; else echo "$svc: stopped"; fi
    done
    ;;
  *) die "unknown command $cmd" ;;
esac
