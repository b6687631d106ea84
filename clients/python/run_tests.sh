#!/usr/bin/env bash
# The Python client's tests (pytest) against a real server (scripts/with-server.sh: WPV_URL, or one
# started on MONGODB_URI / AMQP_URL with the job gateway). The package and pytest go into a venv
# under .local/ (kept between runs; the package is reinstalled from clients/python each run).
# Arguments go to pytest.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/../../.local/venv-python-client"
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "$here[all]" pytest

cd "$here"
status=0
bash ../../scripts/with-server.sh bash -c 'echo "python client tests against $WPV_URL"; exec "$0" -m pytest -p no:cacheprovider "$@"' "$venv/bin/python" "$@" || status=$?
# pytest exits 5 when it collected no tests: a suite that tests nothing fails.
((status != 5)) || echo "python client tests: pytest collected no tests" >&2
exit $((status == 5 ? 1 : status))
