#!/usr/bin/env bash
# End-to-end tests in headless Chromium, against the server at WPV_URL when set, otherwise one
# started on a free port against MONGODB_URI / AMQP_URL (as scripts/test.sh provides) with the
# job gateway's workers and hpc-bridge (scripts/with-server.sh), stopped afterwards. Test files
# may be given as arguments (default: all of e2e/tests/). Screenshots of failed steps go to
# e2e/artifacts/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[[ -f client/dist/index.html ]] || npm run build -w client --silent

exec bash scripts/with-server.sh bash -c 'echo "e2e against $WPV_URL"; exec node --test --test-concurrency=1 "$@"' e2e "${@:-e2e/tests/}"
