#!/usr/bin/env bash
# Small blobs without a file each? (issue 61, docs/decisions/0004-small-blobs.md): the most a layout
# could save (the blob folder on tmpfs), and the file store's writes beside Postgres bytea rows.
# Usage: bench/blob-layouts.sh [NOTES] [ATTACHMENTS] [RUNS] [BATCH]   (defaults 10000 50 3 400)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
exec python3 bench/blob-layouts.py "$@"
