#!/usr/bin/env bash
# Runs every test: builds, then runs unit, server and contract tests. The tests start their own
# private Postgres cluster (one per run, one database per test) on a Unix socket in /tmp.
set -euo pipefail
cd "$(dirname "$0")/.."
infra/install-deps.sh
swift build --build-tests
swift test --skip-build "$@"
