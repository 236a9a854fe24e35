#!/usr/bin/env bash
# The server's full-text search (issue 60) on a vault of NOTES notes, release builds, server on its
# embedded default. See bench/search.py.
# Usage: [SEARCH_WORDS=N] bench/search.sh [NOTES] [REPEATS] [ROUNDS] [EDITS]   (defaults 100000 100 2 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
exec python3 bench/search.py "$@"
