#!/usr/bin/env bash
# Proxied mode streams: pushes a 1 GiB file through a standalone server in proxied mode to an S3
# store (moto) and back, and reports the server's peak resident memory (VmHWM).
# Usage: bench/proxied-memory.sh [size-in-MiB]   (default 1024). Needs curl, python3 and moto_server.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib=${1:-1024}
work=$(mktemp -d /tmp/vaultsync-proxied-XXXX)
chmod 755 "$work"  # the embedded cluster runs as the postgres user when we are root
trap 'kill $server_pid $moto_pid 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --product vaultsync-server >/dev/null
moto_server -H 127.0.0.1 -p 18093 >"$work/moto.log" 2>&1 & moto_pid=$!
for _ in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:18093/ && break; sleep 0.2; done
export VAULTSYNC_S3_ACCESS_KEY_ID=testing VAULTSYNC_S3_SECRET_ACCESS_KEY=testing
.build/release/vaultsync-server serve --port 18092 --data-dir "$work/data" --log-level warning \
  --blob-store "s3://proxied-bench?endpoint=http://127.0.0.1:18093" --blob-access proxied --s3-create-bucket \
  --max-file-bytes $((2 * 1024 * 1024 * 1024)) >"$work/server.log" 2>&1 & server_pid=$!
for _ in $(seq 1 100); do curl -sf http://127.0.0.1:18092/health >/dev/null && break; sleep 0.2; done
curl -sf http://127.0.0.1:18092/health >/dev/null || { cat "$work/server.log" >&2; exit 1; }
echo "server rss at start: $(grep VmRSS /proc/$server_pid/status | awk '{print $2}') kB"
head -c $((size_mib * 1024 * 1024)) /dev/urandom >"$work/big.bin"
python3 - "$work" <<'PY'
import hashlib, json, os, sys, urllib.request
work = sys.argv[1]
B = "http://127.0.0.1:18092"
def call(path, body, headers={}):
    h = {"X-VaultSync-Protocol": "1", "Content-Type": "application/json", **headers}
    r = urllib.request.Request(B + path, data=json.dumps(body).encode(), headers=h, method="POST")
    return json.loads(urllib.request.urlopen(r).read() or b"{}")
t = call("/auth/signup", {"email": "big@example.com", "password": "a long password"})
auth = {"Authorization": "Bearer " + t["access_token"]}
d = call("/devices/register", {"device_name": "bench", "platform": "linux"}, auth)
h = hashlib.sha256()
with open(os.path.join(work, "big.bin"), "rb") as f:
    for chunk in iter(lambda: f.read(1 << 20), b""): h.update(chunk)
size = os.path.getsize(os.path.join(work, "big.bin"))
headers = {**auth, "X-VaultSync-Device": d["device_id"]}
p = call("/vault/push", {"files": [{"path": "big.bin", "content_hash": "sha256:" + h.hexdigest(), "size_bytes": size, "base_version": None}]}, headers)
open(os.path.join(work, "upload"), "w").write(p["uploads"][0]["upload_url"])
open(os.path.join(work, "token"), "w").write(t["access_token"])
open(os.path.join(work, "device"), "w").write(d["device_id"])
open(os.path.join(work, "hash"), "w").write(h.hexdigest())
PY
token=$(cat "$work/token")
start=$(date +%s.%N)
curl -sf -T "$work/big.bin" -H "Authorization: Bearer $token" "$(cat "$work/upload")"
up=$(echo "$(date +%s.%N) - $start" | bc)
python3 - "$work" <<'PY'
import json, sys, urllib.request
work = sys.argv[1]
tok, dev = open(work + "/token").read(), open(work + "/device").read()
def call(path, body):
    h = {"X-VaultSync-Protocol": "1", "Content-Type": "application/json", "Authorization": "Bearer " + tok, "X-VaultSync-Device": dev}
    r = urllib.request.Request("http://127.0.0.1:18092" + path, data=json.dumps(body).encode(), headers=h, method="POST")
    return json.loads(urllib.request.urlopen(r).read())
c = call("/vault/push/confirm", {"confirmed": [{"path": "big.bin", "version": 1}]})
assert len(c["confirmed"]) == 1, c
d = call("/vault/pull", {"files": ["big.bin"]})
open(work + "/download", "w").write(d["downloads"][0]["download_url"])
PY
start=$(date +%s.%N)
got=$(curl -sf -H "Authorization: Bearer $token" "$(cat "$work/download")" | sha256sum | cut -d' ' -f1)
down=$(echo "$(date +%s.%N) - $start" | bc)
[ "$got" = "$(cat "$work/hash")" ] || { echo "downloaded bytes differ" >&2; exit 1; }
echo "file: ${size_mib} MiB; upload ${up}s, download ${down}s, content verified"
echo "server peak rss (VmHWM): $(grep VmHWM /proc/$server_pid/status | awk '{print $2}') kB"
