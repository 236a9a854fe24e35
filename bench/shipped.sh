#!/usr/bin/env bash
# The shipped configuration (issue 13): release server on its embedded default, the CLI as separate
# processes, floors measured in the same run. Usage: bench/shipped.sh [NOTES] [ATTACHMENTS] [RUNS] [CHANGES]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v rsync >/dev/null || { echo "bench/shipped.sh needs rsync (apt-get install rsync)" >&2; exit 1; }
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
exec python3 bench/shipped.py "$@"
