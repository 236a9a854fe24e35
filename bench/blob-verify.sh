#!/usr/bin/env bash
# `vaultsync-server blobs verify` at scale: a release server on its embedded default gets SMALL and
# then BIG distinct notes through `vaultsync init` (one blob each), is stopped, and `blobs verify`
# (by size, then --deep) runs on each store under /usr/bin/time: wall time and peak RSS. The
# smaller store is the floor the larger one is compared with: a verify that pages through the
# store keeps its memory flat. Usage: bench/blob-verify.sh [SMALL] [BIG] (default 10000 100000).
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:-10000}
big=${2:-100000}
work=$(mktemp -d /tmp/vaultsync-verify-XXXX)
chmod 755 "$work"  # the embedded cluster runs as the postgres user when we are root
server_pid=
trap 'kill $server_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
export VAULTSYNC_PASSWORD='a long password'

fill() {  # fill NAME COUNT: a data folder holding COUNT distinct notes
  local name=$1 count=$2 port=$3
  .build/release/vaultsync-server serve --port "$port" --data-dir "$work/$name" --log-level warning >>"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 150); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.2; done
  python3 - "$work/$name-vault" "$count" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    folder = os.path.join(root, f"notes-{i // 1000:03d}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"note-{i:06d}.md"), "w") as f:
        f.write(f"---\ntitle: note {i}\n---\n# Note {i}\n\nText of note {i}.\n")
PY
  .build/release/vaultsync init "$work/$name-vault" --create-account --server "http://127.0.0.1:$port" --email "$name@example.com" --device-name bench >"$work/init.log" 2>&1 || { tail -5 "$work/init.log" "$work/server.log" >&2; exit 1; }
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  server_pid=
}

measure() {  # measure NAME [--deep]: seconds and peak RSS of one verify run
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time" .build/release/vaultsync-server blobs verify --data-dir "$work/$name" --json --log-level warning "$@" >"$work/report.json"
  read -r seconds kb <"$work/time"
  checked=$(python3 -c "import json;r=json.load(open('$work/report.json'));print(r['checked'], r['held'])")
  echo "$name $* : checked/held $checked, ${seconds}s, peak RSS ${kb} kB"
}

fill small "$small" 18131
fill big "$big" 18132
echo "stores: $small and $big blobs (file store, embedded Postgres; release build)"
for mode in "" "--deep"; do
  measure small $mode
  measure big $mode
done
