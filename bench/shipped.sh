#!/usr/bin/env bash
# The shipped configuration (issue 13): release server on its embedded default, the CLI as separate
# processes, floors measured in the same run. Usage: bench/shipped.sh [NOTES] [ATTACHMENTS] [RUNS] [CHANGES]
set -euo pipefail
cd "$(dirname "$0")/.."
infra/install-deps.sh --bench  # rsync, for the no-op's floor
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
exec python3 bench/shipped.py "$@"
