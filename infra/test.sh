#!/usr/bin/env bash
# Runs every test: builds, then runs unit, server and contract tests. The tests start their own
# private Postgres cluster (one per run, one database per test) on a Unix socket in /tmp, and
# moto's S3 server on a loopback port; a run that leaves either running fails.
set -euo pipefail
cd "$(dirname "$0")/.."
infra/install-deps.sh --tests
swift build --build-tests

# Processes the test harness starts; any still running after the tests is a harness defect.
harness_processes() { pgrep -f 'moto_server -H 127.0.0.1 -p|postgres -D /tmp/vaultsync-test-|haproxy -f /tmp/vaultsync-lb-|vaultsync-server serve .*/tmp/vaultsync-lb-' | sort || true; }
before=$(harness_processes)
status=0
swift test --skip-build "$@" || status=$?
sleep 2  # the harness's exit watchdog polls twice a second
left=$(comm -13 <(echo "$before") <(harness_processes) | tr '\n' ' ')
if [ -n "${left// /}" ]; then
  echo "error: the tests left processes running:" >&2
  ps -o pid,args -p ${left} >&2 || true
  kill -9 ${left} 2>/dev/null || true
  exit 1
fi
exit "$status"
