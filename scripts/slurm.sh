#!/usr/bin/env bash
# A project-local single-node Slurm cluster (munged + slurmctld + slurmd) for tests
# and development; nothing under /etc is touched.
#   slurm.sh start|stop|status STATE_DIR
# `start` writes STATE_DIR/env exporting SLURM_CONF; sbatch, squeue, scontrol and
# scancel use the cluster once it is sourced. Needs root (slurmd) and the Debian
# packages slurmctld slurmd slurm-client munge.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd="${1:?usage: slurm.sh start|stop|status STATE_DIR}"
state="${2:?state dir}"
mkdir -p "$state"
state="$(cd "$state" && pwd)"
conf="$state/slurm.conf"
socket="$state/munge/munge.socket"

pid_alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_munge() {
  pid_alive "$state/munge/munged.pid" && return
  mkdir -p "$state/munge"
  chmod 700 "$state/munge"
  [[ -s "$state/munge/munge.key" ]] || mungekey --create --keyfile="$state/munge/munge.key" --force
  chmod 600 "$state/munge/munge.key"
  munged --force --socket="$socket" --key-file="$state/munge/munge.key" \
    --pid-file="$state/munge/munged.pid" --log-file="$state/munge/munged.log" --seed-file="$state/munge/munged.seed"
  for _ in $(seq 1 50); do [[ -S "$socket" ]] && return; sleep 0.1; done
  die "munged did not start; see $state/munge/munged.log"
}

write_conf() {
  [[ -f "$conf" ]] && return
  local host cpus memory
  host="$(hostname -s)"
  cpus="$(nproc)"
  memory="$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)"
  mkdir -p "$state/ctld" "$state/spool" "$state/log"
  cat >"$conf" <<CONF
ClusterName=wpv
SlurmctldHost=$host
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MinJobAge=300
SlurmdTimeout=30
InactiveLimit=0
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
}

start() {
  command -v slurmctld >/dev/null || die "Slurm is not installed (Debian packages slurmctld slurmd slurm-client munge)"
  start_munge
  write_conf
  export SLURM_CONF="$conf"
  pid_alive "$state/slurmctld.pid" || slurmctld -f "$conf" -i
  pid_alive "$state/slurmd.pid" || slurmd -f "$conf"
  printf 'export SLURM_CONF=%q\n' "$conf" >"$state/env"
  for _ in $(seq 1 60); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then return; fi
    sleep 0.5
  done
  die "the Slurm node did not come up; see $state/log"
}

stop_pid() {
  local pidfile="$1"
  pid_alive "$pidfile" || return 0
  local pid
  pid="$(cat "$pidfile")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

case "$cmd" in
  start) start ;;
  stop)
    stop_pid "$state/slurmd.pid"
    stop_pid "$state/slurmctld.pid"
    stop_pid "$state/munge/munged.pid"
    ;;
  status)
    for p in slurmctld slurmd munge/munged; do
      if pid_alive "$state/$p.pid"; then echo "${p##*/}: running"; else echo "${p##*/}: stopped"; fi
    done
    ;;
  *) die "unknown command $cmd" ;;
esac
