#!/usr/bin/env bash
# Export streams: fills a vault with MiB-sized files through the vaultsync CLI, restarts the
# standalone server (so its peak memory counts the export alone), exports the vault with
# 'vaultsync export' (which verifies every entry), and reports the server's RSS before and its
# peak (VmHWM) after. Usage: bench/export-memory.sh [vault-size-in-MiB] (default 520).
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib=${1:-520}
work=$(mktemp -d /tmp/vaultsync-export-XXXX)
chmod 755 "$work"  # the embedded cluster runs as the postgres user when we are root
server_pid=
trap 'kill $server_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
start_server() {
  .build/release/vaultsync-server serve --port 18094 --data-dir "$work/data" --log-level warning >>"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 150); do curl -sf http://127.0.0.1:18094/health >/dev/null && return 0; sleep 0.2; done
  cat "$work/server.log" >&2; exit 1
}
start_server
mkdir -p "$work/vault/attachments" "$work/vault/notes"
for i in $(seq 1 "$size_mib"); do head -c 1048576 /dev/urandom >"$work/vault/attachments/file-$i.bin"; done
for i in $(seq 1 1000); do echo "# note $i" >"$work/vault/notes/note-$i.md"; done
export VAULTSYNC_PASSWORD='a long password'
.build/release/vaultsync signup --server http://127.0.0.1:18094 --email export@example.com >/dev/null
.build/release/vaultsync init "$work/vault" --server http://127.0.0.1:18094 --email export@example.com --device-name bench >/dev/null 2>&1
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
start_server
echo "vault: $size_mib MiB in $size_mib files of 1 MiB, plus 1,000 small notes"
echo "server rss before the export: $(grep VmRSS /proc/$server_pid/status | awk '{print $2}') kB"
start=$(date +%s.%N)
.build/release/vaultsync export "$work/vault" --out "$work/export.zip" 2>/dev/null
took=$(echo "$(date +%s.%N) - $start" | bc)
echo "export (job, download, verification): ${took}s, zip $(($(stat -c %s "$work/export.zip") / 1048576)) MiB"
python3 -m zipfile -t "$work/export.zip" >/dev/null && echo "python zipfile -t: ok"
echo "server peak rss (VmHWM) during the export: $(grep VmHWM /proc/$server_pid/status | awk '{print $2}') kB"
