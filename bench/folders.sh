#!/usr/bin/env bash
# Taking a folder back (`vaultsync folders all`) against a new device (`vaultsync init`), issue 58.
# Release builds, server on its embedded default. See bench/folders.py.
# Usage: bench/folders.sh [NOTES] [REPEATS]   (defaults 10000 3)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
exec python3 bench/folders.py "$@"
