#!/usr/bin/env bash
# Runs a command with a private FerretDB + RabbitMQ (MONGODB_URI, AMQP_URL exported),
# for benchmarks that need the real services:  bash bench/with-stack.sh CMD...
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
dir="$(mktemp -d /tmp/wpv-bench.XXXXXX)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mongo_port=$(free_port)
amqp_port=$(free_port)
dist_port=$(free_port)
# The stack lives in $dir/stack, as in scripts/test.sh (the gateway's fault tests restart it there).
trap 'bash "$WPV_ROOT/scripts/stack.sh" stop "$dir/stack" "$mongo_port" "$amqp_port" >/dev/null 2>&1; rm -rf "$dir"' EXIT
bash "$WPV_ROOT/scripts/stack.sh" start "$dir/stack" "$mongo_port" "$amqp_port" "$dist_port"
source "$dir/stack/env"
export WPV_TEST_DIR="$dir"
"$@"
