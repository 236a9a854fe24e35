#!/usr/bin/env bash
# A note's page in the web app on a vault of NOTES notes (issue 57): backlinks, the outline and
# wiki links, release builds, server on its embedded default. See bench/note-page.py.
# Usage: bench/note-page.sh [NOTES] [REPEATS]   (defaults 10000 200)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
exec python3 bench/note-page.py "$@"
