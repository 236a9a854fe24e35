#!/usr/bin/env bash
# Live sync with `vaultsync watch` (issue 10): idle watcher CPU/RSS and edit-to-other-device
# latency on a 10,000-note vault, release builds, server on its embedded default; with LOAD, the
# latency again while LOAD other devices send the load generator's mix (issue 35).
# Usage: bench/live-sync.sh [NOTES] [EDITS] [IDLE_SECONDS] [LOAD]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
[ "${4:-0}" = 0 ] || swift build -c release --product vaultsync-bench >/dev/null
exec python3 bench/live-sync.py "$@"
