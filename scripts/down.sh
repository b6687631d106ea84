#!/usr/bin/env bash
# Stops what scripts/up.sh started: the API server, the workers, the hpc-bridge
# and the embedded services.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for service in server workers hpc-bridge; do
  if [[ -f "$DATA_DIR/$service.pid" ]]; then
    kill -TERM -- "-$(cat "$DATA_DIR/$service.pid")" 2>/dev/null || true
    rm -f "$DATA_DIR/$service.pid"
  fi
done
bash "$WPV_ROOT/scripts/stack.sh" stop "$DATA_DIR/stack" "${MONGO_PORT:-27017}" "${AMQP_PORT:-5672}"
say "stopped"
