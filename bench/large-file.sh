#!/usr/bin/env bash
# Large files end to end: a SIZE MiB random file synced up by one real `vaultsync` (multipart, the
# default 8 MiB parts) and down by another (streamed to .vaultsync/partial), through a standalone
# release `vaultsync-server` on the chosen blob store. Reports wall time, throughput and the peak
# resident memory (VmHWM / max RSS) of each client run and of the server.
# Usage: bench/large-file.sh [size-in-MiB] [file|s3-proxied|s3-presigned]   (default: 4096 file)
# Needs curl, /usr/bin/time, and moto_server for the S3 stores. Uses about 3x SIZE of /tmp (4x on S3).
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib=${1:-4096}
backend=${2:-file}
work=$(mktemp -d /tmp/vaultsync-large-XXXX)
chmod 755 "$work"  # the embedded cluster runs as the postgres user when we are root
server_pid= moto_pid=
trap 'kill $server_pid $moto_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
store=(--blob-store file)
case "$backend" in
  file) ;;
  s3-proxied|s3-presigned)
    moto_server -H 127.0.0.1 -p 18096 >"$work/moto.log" 2>&1 & moto_pid=$!
    for _ in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:18096/ && break; sleep 0.2; done
    export VAULTSYNC_S3_ACCESS_KEY_ID=testing VAULTSYNC_S3_SECRET_ACCESS_KEY=testing
    store=(--blob-store "s3://large-bench?endpoint=http://127.0.0.1:18096" --blob-access "${backend#s3-}" --s3-create-bucket) ;;
  *) echo "unknown store '$backend': file, s3-proxied or s3-presigned" >&2; exit 2 ;;
esac
.build/release/vaultsync-server serve --port 18095 --data-dir "$work/data" --log-level warning "${store[@]}" \
  --max-file-bytes $((64 * 1024 * 1024 * 1024)) >"$work/server.log" 2>&1 & server_pid=$!
for _ in $(seq 1 150); do curl -sf http://127.0.0.1:18095/health >/dev/null && break; sleep 0.2; done
curl -sf http://127.0.0.1:18095/health >/dev/null || { cat "$work/server.log" >&2; exit 1; }
mkdir -p "$work/up"
head -c $((size_mib * 1024 * 1024)) /dev/urandom >"$work/up/big.bin"
want=$(sha256sum "$work/up/big.bin" | cut -d' ' -f1)
export VAULTSYNC_PASSWORD='a long bench password'
link=(--server http://127.0.0.1:18095 --email large@example.com)
/usr/bin/time -f "%e %M" -o "$work/up.time" .build/release/vaultsync init "$work/up" "${link[@]}" --create-account >"$work/up.log" 2>&1 \
  || { cat "$work/up.log" "$work/server.log" >&2; exit 1; }
/usr/bin/time -f "%e %M" -o "$work/down.time" .build/release/vaultsync init "$work/down" "${link[@]}" >"$work/down.log" 2>&1 \
  || { cat "$work/down.log" "$work/server.log" >&2; exit 1; }
got=$(sha256sum "$work/down/big.bin" | cut -d' ' -f1)
[ "$got" = "$want" ] || { echo "downloaded bytes differ" >&2; exit 1; }
report() {  # label, "seconds maxrss-kB"
  read -r seconds rss <<<"$(tail -1 "$2")"
  echo "$1: ${seconds}s, $(echo "scale=0; $size_mib / $seconds" | bc) MiB/s, client peak RSS $((rss / 1024)) MiB"
}
echo "store: $backend, file: $size_mib MiB, content verified"
report "upload (init, multipart)" "$work/up.time"
report "download (init)" "$work/down.time"
echo "server peak RSS (VmHWM): $(( $(grep VmHWM /proc/$server_pid/status | awk '{print $2}') / 1024 )) MiB"
