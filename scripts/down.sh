#!/usr/bin/env bash
# Stops what scripts/up.sh started: supervisord stops the API, the workers, the
# hpc-bridge and the embedded FerretDB and RabbitMQ, then exits. Then the local
# backend's stage programs go too (below).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bash "$WPV_ROOT/scripts/supervisor.sh" stop

# The local backend runs each stage in a session of its own (run-stage.sh leads it) so that
# it outlives a restart of the bridge, which re-attaches to it. A full stop must not leave
# analyses on the CPUs, nor let a stage waiting for a CPU slot start once the platform is
# down. Each session is killed, its wrapper first so that no exit record is written: the
# next start finds the stage lost and runs it again. Only this platform's wrappers (its job
# directory), and only the local backend's (WPV_SLOTS in their environment, session
# leaders): a Slurm job's wrapper belongs to the cluster.
jobs_dir="${JOBS_DIR:-$DATA_DIR/jobs}"
sessions=()
for pid in $(pgrep -f "hpc-bridge/bin/run-stage.sh $jobs_dir/" || true); do
  [[ "$(ps -o sid= -p "$pid" | tr -d ' ')" == "$pid" ]] || continue
  grep -qz '^WPV_SLOTS=' "/proc/$pid/environ" 2>/dev/null || continue
  kill -KILL "$pid" 2>/dev/null || continue
  pkill -KILL -s "$pid" 2>/dev/null || true
  sessions+=("$pid")
done
# A killed process ends only once it is next scheduled, which on a busy machine can be after
# this script would have returned: wait (10 s at most) until none but zombies is left.
# (grep reads all of ps's output: with -q it could stop early and pipefail would see ps's SIGPIPE.)
session_alive() { ps -o stat= -s "$1" 2>/dev/null | grep -v '^Z' >/dev/null; }
for _ in $(seq 100); do
  left=0
  for sid in "${sessions[@]}"; do
    session_alive "$sid" && { pkill -KILL -s "$sid" 2>/dev/null; left=1; }
  done
  ((left)) || break
  sleep 0.1
done
((left == 0)) || say "warning: analysis programs of a killed stage still run after 10 s (sessions ${sessions[*]})"
stopped=${#sessions[@]}
((stopped == 0)) || say "stopped $stopped analysis program(s); their stages run again on the next start"
say "stopped"
