#!/usr/bin/env bash
# VaultSync beside Syncthing on the same vault in the same run, with SVG charts (issue 35).
# Installs rsync and Debian's syncthing when missing (infra/install-deps.sh --bench).
# Usage: bench/peers.sh [SIZES] [EDITS] [CHANGES]   (defaults 1000,10000,30000 5 30); CHARTS=DIR (docs/charts)
set -euo pipefail
cd "$(dirname "$0")/.."
infra/install-deps.sh --bench
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
exec python3 bench/peers.py "$@"
