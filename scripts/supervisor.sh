#!/usr/bin/env bash
# The platform's processes under Debian's supervisord, project-local: its config,
# control socket, pid file and the per-service logs live under $DATA_DIR.
#   supervisor.sh start [MONGO_PORT AMQP_PORT]   write the config and start supervisord, or
#                          apply the config to the one already running; with ports, the
#                          embedded FerretDB and RabbitMQ (state in $DATA_DIR/stack) run under it too
#   supervisor.sh stop     stop every program, then supervisord
#   supervisor.sh ctl ARGS supervisorctl on this platform's socket (status, pid NAME, restart NAME, ...)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dir="$DATA_DIR/supervisor"
conf="$dir/supervisord.conf"
templates="$WPV_ROOT/scripts"

ctl() { supervisorctl -c "$conf" "$@"; }
running() { [[ -S "$dir/supervisor.sock" ]] && ctl pid >/dev/null 2>&1; }

# program NAME PRIORITY STARTSECS STOPWAITSECS COMMAND: one [program:NAME] section.
program() {
  NAME="$1" PRIORITY="$2" STARTSECS="$3" STOPWAITSECS="$4" COMMAND="$5" \
    envsubst '${NAME} ${PRIORITY} ${STARTSECS} ${STOPWAITSECS} ${COMMAND} ${DATA_DIR}' <"$templates/supervisor-program.conf.template"
}

write_conf() {
  # The paths go into an INI file whose values expand %(...)s and split on spaces.
  [[ "$DATA_DIR:$WPV_ROOT" =~ ^[A-Za-z0-9._/+@:-]+$ ]] ||
    die "DATA_DIR ($DATA_DIR) and the checkout path ($WPV_ROOT) may hold only letters, digits and ._/+@- for the supervisor's config"
  mkdir -p "$dir" "$DATA_DIR/logs"
  {
    envsubst '${DATA_DIR} ${WPV_ROOT}' <"$templates/supervisord.conf.template"
    if (($# == 2)); then
      [[ "$1" =~ ^([0-9]+|unix)$ && "$2" =~ ^[0-9]+$ ]] || die "ports must be numbers (the store's may be 'unix'): $1 $2"
      # Started first (lower priority); the Node services wait for them and reconnect.
      program ferretdb 10 2 15 "bash scripts/stack.sh run ferretdb $DATA_DIR/stack $1 $2"
      program rabbitmq 20 5 60 "bash scripts/stack.sh run rabbitmq $DATA_DIR/stack $1 $2"
    fi
    program api 100 10 15 "node --import tsx server/src/main.ts"
    program workers 100 10 15 "node --import tsx workers/src/main.ts"
    program hpc-bridge 100 10 15 "node --import tsx hpc-bridge/src/main.ts"
  } >"$conf.new"
  mv -f "$conf.new" "$conf"
}

case "${1:-}" in
  start)
    shift
    write_conf "$@"
    if running; then
      # Adds, removes and restarts changed programs; starts any that were stopped.
      ctl update >/dev/null
      ctl start all >/dev/null || true
    else
      supervisord -c "$conf"
    fi
    ;;
  stop)
    if running; then
      pid="$(ctl pid)"
      ctl shutdown >/dev/null
      for _ in $(seq 1 360); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    fi
    ;;
  ctl)
    shift
    ctl "$@"
    ;;
  *) die "usage: supervisor.sh start [MONGO_PORT AMQP_PORT] | stop | ctl ARGS" ;;
esac
