# Shared settings for the platform scripts; sourced, not run.
# Everything lives under the repository (DATA_DIR, .local) so nothing outside it is touched.
WPV_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export WPV_ROOT
export DATA_DIR="${DATA_DIR:-$WPV_ROOT/data}"
export WPV_LOCAL="$WPV_ROOT/.local"
export FERRETDB_BIN="$WPV_LOCAL/bin/ferretdb-embedded"

say() { printf '\033[1m==>\033[0m %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# port_open PORT: true when something accepts TCP connections on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
