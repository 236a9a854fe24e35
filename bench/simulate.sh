#!/usr/bin/env bash
# The deterministic simulation at scale (issue 14): release build, HISTORIES seeded histories
# (default 10000) from SEED (default: the clock), each checked against every invariant
# (docs/testing.md). Stops at the first failure and prints its seed and shortest failing history;
# with --keep-going as a third argument runs them all and lists every failure; with --shared
# (third or later) the histories run in a vault three people share, with --encrypted in an
# end-to-end encrypted vault, with both in an encrypted vault three people share.
# Usage: bench/simulate.sh [HISTORIES] [SEED] [--keep-going] [--shared] [--encrypted]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product vaultsync-bench >/dev/null
args=(--simulate "${1:-10000}")
if [ -n "${2:-}" ]; then args+=(--seed "$2"); fi
for flag in "${@:3}"; do
  case "$flag" in
    --keep-going|--shared|--encrypted) args+=("$flag") ;;
    *) echo "unknown option: $flag (--keep-going, --shared, --encrypted)" >&2; exit 64 ;;
  esac
done
exec .build/release/vaultsync-bench "${args[@]}"
