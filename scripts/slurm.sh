#!/usr/bin/env bash
# A project-local Slurm cluster (munged + slurmctld + slurmd) for tests and development;
# nothing under /etc is touched.
#   slurm.sh start|stop|status STATE_DIR [NODES]
# One node (the default) is this host. NODES >= 2 makes a real multi-node cluster on this
# one machine: each node is a network namespace with its own hostname (UTS namespace),
# address and slurmd, joined to the host by a veth pair on a private bridge where
# slurmctld listens; the job directory is shared as on a cluster's shared filesystem.
# `start` writes STATE_DIR/env exporting SLURM_CONF; sbatch, squeue, scontrol and
# scancel use the cluster once it is sourced. Needs root (slurmd) and the Debian
# packages slurmctld slurmd slurm-client munge.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd="${1:?usage: slurm.sh start|stop|status STATE_DIR [NODES]}"
state="${2:?state dir}"
mkdir -p "$state"
state="$(cd "$state" && pwd)"
conf="$state/slurm.conf"
socket="$state/munge/munge.socket"
# The node count is fixed when the cluster is first configured; later calls read it back.
if [[ -f "$state/nodes" ]]; then nodes="$(cat "$state/nodes")"; else nodes="${3:-1}"; fi
[[ "$nodes" =~ ^[1-9]$ ]] || die "NODES must be 1-9, not '$nodes'"
# Names of this cluster's links, namespaces and subnet, unique per state directory
# (interface names are limited to 15 characters).
tag="$(printf '%s' "$state" | sha1sum | cut -c1-6)"
subnet="10.$((16#${tag:0:2} % 200 + 20)).$((16#${tag:2:2}))"
bridge="wpvb$tag"
node_name() { echo "n$1"; }
node_netns() { echo "wpv-$tag-n$1"; }
node_addr() { echo "$subnet.$(($1 + 1))"; }

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
  local host cpus memory ctld node_lines partition_nodes i
  host="$(hostname -s)"
  cpus="$(nproc)"
  memory="$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)"
  mkdir -p "$state/ctld" "$state/spool" "$state/log"
  echo "$nodes" >"$state/nodes"
  if ((nodes == 1)); then
    ctld="$host"
    node_lines="NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN"
    partition_nodes="$host"
  else
    # The nodes share this machine's cores and memory, as oversubscribed test nodes.
    ctld="$host($subnet.1)"
    node_lines=""
    for i in $(seq 1 "$nodes"); do
      node_lines+="NodeName=$(node_name "$i") NodeHostname=$(node_name "$i") NodeAddr=$(node_addr "$i") CPUs=$cpus RealMemory=$((memory / nodes)) State=UNKNOWN"$'\n'
    done
    partition_nodes="n[1-$nodes]"
  fi
  cat >"$conf" <<CONF
ClusterName=wpv
SlurmctldHost=$ctld
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool/%n
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd-%n.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd-%n.log
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
$node_lines
PartitionName=debug Nodes=$partition_nodes Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
}

# The private network of a multi-node cluster: a bridge on the host (slurmctld's address)
# and per node a namespace whose veth end carries the node's address.
start_network() {
  local i ns
  ip link show "$bridge" >/dev/null 2>&1 || {
    ip link add "$bridge" type bridge
    ip addr add "$subnet.1/24" dev "$bridge"
    ip link set "$bridge" up
  }
  for i in $(seq 1 "$nodes"); do
    ns="$(node_netns "$i")"
    ip netns list | grep -x "$ns.*" >/dev/null && continue  # not -q: see down.sh's session_alive
    ip netns add "$ns"
    ip link add "wpv${tag}h$i" type veth peer name "wpv${tag}n$i"
    ip link set "wpv${tag}h$i" master "$bridge" up
    ip link set "wpv${tag}n$i" netns "$ns"
    ip -n "$ns" addr add "$(node_addr "$i")/24" dev "wpv${tag}n$i"
    ip -n "$ns" link set "wpv${tag}n$i" up
    ip -n "$ns" link set lo up
  done
}

stop_network() {
  local i
  for i in $(seq 1 "$nodes"); do
    ip netns del "$(node_netns "$i")" 2>/dev/null || true # takes its veth pair with it
  done
  ip link del "$bridge" 2>/dev/null || true
}

slurmd_pidfile() { echo "$state/slurmd-$1.pid"; }

start_slurmds() {
  local i
  if ((nodes == 1)); then
    mkdir -p "$state/spool/$(hostname -s)"
    pid_alive "$(slurmd_pidfile "$(hostname -s)")" || slurmd -f "$conf"
    return
  fi
  for i in $(seq 1 "$nodes"); do
    pid_alive "$(slurmd_pidfile "$(node_name "$i")")" && continue
    mkdir -p "$state/spool/$(node_name "$i")"
    # Its own hostname, so MPI and Slurm see distinct hosts; job steps inherit both namespaces.
    # nsenter rather than `ip netns exec`, which remounts /sys without the cgroup tree slurmd reads.
    nsenter --net="/run/netns/$(node_netns "$i")" unshare --uts sh -c 'hostname "$1" && exec slurmd -f "$2" -N "$1"' \
      slurmd "$(node_name "$i")" "$conf"
  done
}

start() {
  command -v slurmctld >/dev/null || die "Slurm is not installed (Debian packages slurmctld slurmd slurm-client munge)"
  start_munge
  write_conf
  export SLURM_CONF="$conf"
  ((nodes == 1)) || start_network
  pid_alive "$state/slurmctld.pid" || slurmctld -f "$conf" -i
  start_slurmds
  printf 'export SLURM_CONF=%q\n' "$conf" >"$state/env"
  for _ in $(seq 1 60); do
    if (($(sinfo -h -N -o '%T' 2>/dev/null | grep -cE '^(idle|mixed|allocated)') == nodes)); then return; fi
    sleep 0.5
  done
  die "the Slurm nodes did not come up; see $state/log"
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
    for pidfile in "$state"/slurmd-*.pid; do stop_pid "$pidfile"; done
    stop_pid "$state/slurmctld.pid"
    stop_pid "$state/munge/munged.pid"
    ((nodes == 1)) || stop_network
    ;;
  status)
    for p in slurmctld munge/munged; do
      if pid_alive "$state/$p.pid"; then echo "${p##*/}: running"; else echo "${p##*/}: stopped"; fi
    done
    for pidfile in "$state"/slurmd-*.pid; do
      name="${pidfile##*/slurmd-}"
      if pid_alive "$pidfile"; then echo "slurmd ${name%.pid}: running"; else echo "slurmd ${name%.pid}: stopped"; fi
    done
    ;;
  *) die "unknown command $cmd" ;;
esac
