#!/usr/bin/env bash
# The client's memory on NOTES notes (issue 61): a first upload, a new device and a no-op, each
# under heaptrack (peak heap) and /usr/bin/time (peak RSS), release builds. See bench/client-memory.py.
# Usage: bench/client-memory.sh [NOTES]   (default 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
infra/install-deps.sh --bench  # heaptrack
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
exec python3 bench/client-memory.py "$@"
