#!/usr/bin/env bash
# `npm test`: every suite against real services. Starts a private FerretDB and
# RabbitMQ on free ports in a temporary directory, runs the suites, stops them.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WPV_ROOT"

bash scripts/install.sh || exit 1

export WPV_TEST_DIR="$(mktemp -d /tmp/wpv-test.XXXXXX)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mongo_port=$(free_port)
amqp_port=$(free_port)
dist_port=$(free_port)
background_pids=()
cleanup() {
  ((${#background_pids[@]})) && kill "${background_pids[@]}" 2>/dev/null
  bash scripts/stack.sh stop "$WPV_TEST_DIR/stack" "$mongo_port" "$amqp_port" >/dev/null 2>&1
  rm -rf "$WPV_TEST_DIR"
}
trap cleanup EXIT
say "starting test services (FerretDB :$mongo_port, RabbitMQ :$amqp_port)"
bash scripts/stack.sh start "$WPV_TEST_DIR/stack" "$mongo_port" "$amqp_port" "$dist_port" || exit 1
source "$WPV_TEST_DIR/stack/env"

failed=()
passed=0
failures=0
summary=()  # one "suite passed failed seconds" line per suite, printed at the end
run_suite() {
  local name="$1"
  shift
  say "suite: $name"
  local log="$WPV_TEST_DIR/$name.log" started=$SECONDS
  "$@" 2>&1 | tee "$log"
  record_suite "$name" "${PIPESTATUS[0]}" "$log" $((SECONDS - started))
}
record_suite() {
  local name="$1" status="$2" log="$3" seconds="$4"
  read -r p f < <(count_tests "$log")
  passed=$((passed + p))
  failures=$((failures + f))
  ((status == 0)) || { failed+=("$name"); ((f > 0)) || failures=$((failures + 1)); }
  summary+=("$(printf '%-16s %6d %6d %7d' "$name" "$p" "$f" "$seconds")")
}
# A suite that runs in the background beside the ones after it; finish_background_suite collects it.
start_background_suite() {
  local name="$1"
  shift
  say "suite: $name (in the background)"
  local started=$SECONDS
  ( "$@" >"$WPV_TEST_DIR/$name.log" 2>&1; echo $? >"$WPV_TEST_DIR/$name.status"
    echo $((SECONDS - started)) >"$WPV_TEST_DIR/$name.seconds" ) &
  background_pids+=("$!")
}
finish_background_suite() {
  local name="$1"
  say "suite: $name (collected)"
  cat "$WPV_TEST_DIR/$name.log"
  record_suite "$name" "$(cat "$WPV_TEST_DIR/$name.status" 2>/dev/null || echo 1)" "$WPV_TEST_DIR/$name.log" \
    "$(cat "$WPV_TEST_DIR/$name.seconds" 2>/dev/null || echo 0)"
}

# "PASSED FAILED" read from the closing lines of node's runner, ctest and vitest.
count_tests() {
  python3 - "$1" <<'PY'
import re, sys
text = re.sub(r'\x1b\[[0-9;]*m', '', open(sys.argv[1], errors='replace').read())
def last(pattern):
    found = re.findall(pattern, text, re.M)
    return int(found[-1]) if found else 0
if re.search(r'tests failed out of', text):  # ctest
    total, failed = last(r'tests failed out of (\d+)'), last(r'(\d+) tests failed out of')
    print(total - failed, failed)
elif re.search(r'^\s*Tests\s+.*\(\d+\)', text, re.M):  # vitest
    print(last(r'^\s*Tests\s+(?:\d+ failed \| )?(\d+) passed'), last(r'^\s*Tests\s+(\d+) failed'))
elif re.search(r'^=*\s*(?:\d+ \w+, )*\d+ \w+ in [\d.]+s', text, re.M):  # pytest: "3 failed, 9 passed, 1 error in 5.1s"
    closing = re.findall(r'^=*\s*((?:\d+ \w+, )*\d+ \w+) in [\d.]+s', text, re.M)[-1]
    counts = {word: int(n) for n, word in re.findall(r'(\d+) (\w+)', closing)}
    print(counts.get('passed', 0), counts.get('failed', 0) + counts.get('error', 0) + counts.get('errors', 0))
else:  # node --test (tap or spec reporter)
    print(last(r'^(?:# |ℹ )pass (\d+)'), last(r'^(?:# |ℹ )fail (\d+)'))
PY
}

[[ -f kernels/build.sh ]] && run_suite kernels-build bash kernels/build.sh
run_suite typecheck npm run typecheck --silent
# Node 20's runner does not expand globs: list the files.
run_suite server node --import tsx --test --test-concurrency=2 $(find server/test -name '*.test.ts' | sort)
[[ -f kernels/build.sh ]] && run_suite kernels ctest --test-dir kernels/build -E swg-avx512-bochs --output-on-failure
# The AVX-512 kernel on an emulated CPU takes ~8 minutes of one core. It runs beside the suites
# from here on, which mostly wait (faults, outages, browsers) and last longer; the ones before
# keep both cores for their own work.
start_background_suite kernels-avx512 ctest --test-dir kernels/build -R swg-avx512-bochs --output-on-failure
# Job gateway: API, faults, real kernels end to end (local and on a Slurm cluster the suite starts).
run_suite gateway node --import tsx --test --test-concurrency=1 $(find server/test/jobs -name '*.spec.ts' | sort)
# The Python client (pytest) against its own API server, workers and hpc-bridge on the test stack.
run_suite python bash clients/python/run_tests.sh
[[ -f client/vite.config.ts ]] && run_suite client npm test -w client --silent
[[ -f e2e/run.sh ]] && run_suite e2e bash e2e/run.sh
wait "${background_pids[@]}"
finish_background_suite kernels-avx512

echo
printf '%-16s %6s %6s %7s\n' suite passed failed seconds
printf '%s\n' "${summary[@]}"
echo "whole run: $SECONDS s"
if ((${#failed[@]})); then
  say "failed suites: ${failed[*]}"
  echo "tests: $passed passed, $failures failed"
  exit 1
fi
say "all suites passed"
echo "tests: $passed passed, 0 failed"
