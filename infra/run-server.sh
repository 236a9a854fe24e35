#!/usr/bin/env bash
# Runs the VaultSync server on its embedded default: a private Postgres cluster and a file blob
# store in ./.vaultsync-server/. Extra arguments go to `vaultsync-server serve` (see --help).
set -euo pipefail
cd "$(dirname "$0")/.."
infra/install-deps.sh
swift build -c release --product vaultsync-server
exec .build/release/vaultsync-server serve "$@"
