#!/usr/bin/env bash
# The deterministic simulation at scale (issue 14): release build, HISTORIES seeded histories
# (default 10000) from SEED (default: the clock), each checked against every invariant
# (docs/testing.md). Stops at the first failure and prints its seed and shortest failing history;
# with --keep-going as a third argument runs them all and lists every failure.
# Usage: bench/simulate.sh [HISTORIES] [SEED] [--keep-going]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product vaultsync-bench >/dev/null
args=(--simulate "${1:-10000}")
if [ -n "${2:-}" ]; then args+=(--seed "$2"); fi
if [ "${3:-}" = "--keep-going" ]; then args+=(--keep-going); fi
exec .build/release/vaultsync-bench "${args[@]}"
