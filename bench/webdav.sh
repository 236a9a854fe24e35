#!/usr/bin/env bash
# WebDAV (issue 33) beside the native client, through a standalone release `vaultsync-server` on
# its embedded default, in one run:
#   - PROPFIND Depth 1 of one folder holding NOTES files: latency over 30 requests (p50, p90),
#     beside an HTTP round trip to /health (the floor of any answer);
#   - a NOTES-note vault (in 20 folders) up and down: `vaultsync init` (first upload, new device)
#     and `rclone copy` over WebDAV (vendor owncloud), beside `cp -r` + `sync` (the floor);
#   - a SIZE MiB file PUT and GET with curl: time and the server's peak memory (VmHWM) before and
#     after, content verified.
# Usage: bench/webdav.sh [notes] [size-in-MiB]   (default: 10000 4096)
# Needs curl, rclone, /usr/bin/time. Uses about 3x SIZE of /tmp. rclone paces its WebDAV requests
# (about a hundred a second), so its copies of 10,000 notes take minutes whatever the server does.
set -euo pipefail
cd "$(dirname "$0")/.."
notes=${1:-10000}
size_mib=${2:-4096}
work=$(mktemp -d /tmp/vaultsync-webdav-XXXX)
chmod 755 "$work"  # the embedded cluster runs as the postgres user when we are root
server_pid=
trap 'kill $server_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
port=18097
base=http://127.0.0.1:$port
.build/release/vaultsync-server serve --port $port --data-dir "$work/data" --log-level warning \
  --max-file-bytes $((64 * 1024 * 1024 * 1024)) >"$work/server.log" 2>&1 & server_pid=$!
for _ in $(seq 1 150); do curl -sf $base/health >/dev/null && break; sleep 0.2; done
curl -sf $base/health >/dev/null || { cat "$work/server.log" >&2; exit 1; }
rss() { echo $(( $(grep VmHWM /proc/$server_pid/status | awk '{print $2}') / 1024 )); }
seconds() { /usr/bin/time -f "%e" -o "$work/t" "$@" >"$work/step.log" 2>&1 || { cat "$work/step.log" >&2; exit 1; }; cat "$work/t"; }

# The vault: NOTES small notes in 20 folders, and the same count again in one folder for PROPFIND.
mkdir -p "$work/notes" "$work/flat"
python3 - "$work" "$notes" <<'EOF'
import os, sys
work, notes = sys.argv[1], int(sys.argv[2])
for i in range(notes):
    folder = os.path.join(work, "notes", f"folder {i % 20}")
    os.makedirs(folder, exist_ok=True)
    body = f"---\ntags: [bench]\n---\n# Note {i}\n\n" + ("Some words of a note. " * (5 + i % 40)) + "\n"
    open(os.path.join(folder, f"note {i}.md"), "w").write(body)
    open(os.path.join(work, "flat", f"note {i}.md"), "w").write(body)
EOF
export VAULTSYNC_PASSWORD='a long bench password'
link=(--server $base --email webdav@example.com)
floor=$(seconds sh -c "cp -r '$work/notes' '$work/floor' && sync")
cp -r "$work/notes" "$work/up"
up=$(seconds .build/release/vaultsync init "$work/up" "${link[@]}" --create-account)
down=$(seconds .build/release/vaultsync init "$work/down" "${link[@]}")
password=$(.build/release/vaultsync app-password create bench --vault "$work/up" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["password"])')
auth=(-u "webdav@example.com:$password")
curl -sf "${auth[@]}" -X MKCOL $base/dav/rclone/ >/dev/null
export RCLONE_CONFIG_VS_TYPE=webdav RCLONE_CONFIG_VS_URL=$base/dav/rclone/ RCLONE_CONFIG_VS_VENDOR=owncloud \
  RCLONE_CONFIG_VS_USER=webdav@example.com RCLONE_CONFIG_VS_PASS=$(rclone obscure "$password")
rclone_up=$(seconds rclone copy "$work/notes" vs: --config /dev/null --transfers 8)
rclone_down=$(seconds rclone copy vs: "$work/rclone-down" --config /dev/null --transfers 8)
diff -r "$work/notes" "$work/rclone-down" >/dev/null || { echo "rclone's copy down differs" >&2; exit 1; }
diff -r "$work/notes" "$work/down" --exclude .vaultsync >/dev/null || { echo "the new device's copy differs" >&2; exit 1; }

# PROPFIND Depth 1 of a folder of NOTES files (the flat copy, in a vault of its own, put natively).
mkdir -p "$work/flat-vault" && mv "$work/flat" "$work/flat-vault/flat"
seconds .build/release/vaultsync init "$work/flat-vault" "${link[@]}" --vault flat --create >/dev/null
latency() {  # label, curl arguments...: 30 requests, p50 and p90 in ms
  local label=$1; shift
  for _ in $(seq 1 30); do curl -s -o /dev/null -w "%{time_total}\n" "$@"; done | sort -n >"$work/lat"
  echo "$label: p50 $(awk 'NR==15 {printf "%.1f", $1*1000}' "$work/lat") ms, p90 $(awk 'NR==27 {printf "%.1f", $1*1000}' "$work/lat") ms"
}
listed=$(curl -s "${auth[@]}" -X PROPFIND -H "Depth: 1" $base/dav/flat/flat/ | grep -c "<D:response>")

echo "notes: $notes (release build, embedded Postgres, fsync on)"
latency "PROPFIND Depth 1, $((listed - 1)) files" "${auth[@]}" -X PROPFIND -H "Depth: 1" $base/dav/flat/flat/
latency "floor: GET /health" $base/health
echo "cp -r + sync (floor): ${floor}s"
echo "vaultsync init, first upload: ${up}s ($(echo "scale=2; $up / $floor" | bc)x the floor)"
echo "vaultsync init, new device: ${down}s ($(echo "scale=2; $down / $floor" | bc)x)"
echo "rclone copy up (WebDAV): ${rclone_up}s ($(echo "scale=2; $rclone_up / $floor" | bc)x)"
echo "rclone copy down (WebDAV): ${rclone_down}s ($(echo "scale=2; $rclone_down / $floor" | bc)x)"

# A large file with curl: PUT then GET, the server's peak memory before and after.
head -c $((size_mib * 1024 * 1024)) /dev/urandom >"$work/big.bin"
want=$(sha256sum "$work/big.bin" | cut -d' ' -f1)
before=$(rss)
put=$(seconds curl -sf "${auth[@]}" -T "$work/big.bin" $base/dav/rclone/big.bin)
after_put=$(rss)
get=$(seconds curl -sf "${auth[@]}" -o "$work/big.down" $base/dav/rclone/big.bin)
after_get=$(rss)
[ "$(sha256sum "$work/big.down" | cut -d' ' -f1)" = "$want" ] || { echo "the file read back differs" >&2; exit 1; }
echo "PUT $size_mib MiB: ${put}s ($(echo "scale=0; $size_mib / $put" | bc) MiB/s); GET: ${get}s ($(echo "scale=0; $size_mib / $get" | bc) MiB/s); content verified"
echo "server peak RSS: ${before} MiB before, ${after_put} MiB after the PUT, ${after_get} MiB after the GET"
