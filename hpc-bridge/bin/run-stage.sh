#!/usr/bin/env bash
# Runs one stage's program in its stage directory and records the outcome in files,
# so that the bridge can be restarted (or run elsewhere) and still learn how it ended.
#   run-stage.sh STAGE_DIR PROGRAM [ARGS...]
# WPV_TIME_LIMIT=seconds: wall-time limit; WPV_KILL_GRACE=seconds (default 10) from its
# SIGTERM to SIGKILL.
# Writes launch.json when it starts, stdout/stderr of the program, and exit.json
# (atomically, by rename) when the program ends: exit code, wall and CPU seconds,
# peak resident memory of the largest process (KiB).
# With WPV_SLOTS=N and WPV_SLOT_DIR set (local backend), it first waits for
# WPV_SLOTS_NEEDED (default 1; its ranks × threads) of the N CPU slots (flocks, released
# when the program ends or is killed): local programs beyond the machine's size wait
# here, asleep, instead of oversubscribing it.
set -u
dir="$1"
shift
cd "$dir" || exit 90
now() { date +%s.%N; }

if [[ -n "${WPV_SLOTS:-}" ]]; then
  if (( ${WPV_SLOTS_NEEDED:-1} <= 1 )); then
    # One CPU: whichever slot is free first.
    until
      for slot in $(seq 1 "$WPV_SLOTS"); do
        exec 9>"$WPV_SLOT_DIR/slot.$slot"
        flock -n 9 && break 2
      done
      false
    do sleep 0.1; done
  else
    # Several: slots 1..k, each waited for in that order. Every multi-CPU program takes
    # them in the same order and one-CPU programs never wait while holding one, so no
    # two programs can each hold a slot that the other waits for.
    for slot in $(seq 1 "$WPV_SLOTS_NEEDED"); do
      exec {held}>"$WPV_SLOT_DIR/slot.$slot"
      flock "$held"
    done
  fi
fi
printf '{"pid":%d,"slurmJobId":"%s","startedAt":%s}\n' "$$" "${SLURM_JOB_ID:-}" "$(now)" >launch.json.tmp
mv launch.json.tmp launch.json
# WPV_TIME_LIMIT: the stage's wall-time limit in seconds (timeout exits 124, or 137 after
# the grace). --foreground keeps the program in this process group, which a cancel signals.
limit=()
[[ -n "${WPV_TIME_LIMIT:-}" ]] && limit=(timeout --foreground --kill-after="${WPV_KILL_GRACE:-10}" "$WPV_TIME_LIMIT")
/usr/bin/time -o rusage -f '%M %U %S %e' "${limit[@]}" "$@" >stdout 2>stderr
code=$?
# The limit's SIGKILL reaches only the launcher, and ranks outlive a killed mpirun. Where
# this wrapper leads its session (the local backend starts it so), whatever is left in
# the session once the program has ended goes now. (Slurm ends a job's processes itself.)
if [[ "$(ps -o sid= -p $$ | tr -d ' ')" == "$$" ]]; then
  leftovers=$(pgrep -s $$)
  for pid in $leftovers; do
    [[ "$pid" != "$$" ]] && kill -KILL "$pid" 2>/dev/null
  done
fi
# GNU time prefixes a "Command terminated by signal" line when the program was killed.
read -r peak user sys wall < <(tail -n 1 rusage 2>/dev/null) || true
cpu=$(awk -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN { printf "%.2f", u + s }')
printf '{"exitCode":%d,"runSeconds":%s,"cpuSeconds":%s,"peakMemoryKb":%s}\n' \
  "$code" "${wall:-null}" "$cpu" "${peak:-null}" >exit.json.tmp
mv exit.json.tmp exit.json
exit "$code"
