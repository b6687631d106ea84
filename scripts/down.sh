#!/usr/bin/env bash
# Stops what scripts/up.sh started: supervisord stops the API, the workers, the
# hpc-bridge and the embedded FerretDB and RabbitMQ, then exits.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bash "$WPV_ROOT/scripts/supervisor.sh" stop
say "stopped"
