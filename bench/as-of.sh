#!/usr/bin/env bash
# The vault as of a moment at scale (issue 59): a release server on its embedded default, one vault
# filled by SQL with FILES notes, each made two hours ago (version 1); then CHANGED of them rewritten
# an hour ago (version 2), a hundred deleted and a hundred made since. Through the API, each step
# timed once in this order: the floor (a full state read of the vault, pages of 5,000), the dry run
# as of 90 minutes ago, the restore, and the restore's undo (as of just before it).
# Usage: bench/as-of.sh [FILES] [CHANGED]   (default 100000 100000). Needs python3 and curl.
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-100000}
changed=${2:-100000}
work=$(mktemp -d /tmp/vaultsync-asof-XXXX)
chmod 755 "$work"  # the embedded cluster runs as the postgres user when we are root
server_pid=
trap 'kill $server_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --product vaultsync-server >/dev/null
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
.build/release/vaultsync-server serve --port 18121 --data-dir "$work/data" --log-level warning >>"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 150); do curl -sf http://127.0.0.1:18121/health >/dev/null && break; sleep 0.2; done
sql() { "$pgbin/psql" -h "$work/data/postgres" -U postgres -d vaultsync -v ON_ERROR_STOP=1 -qAt "$@"; }

python3 - "$work" <<'PY'
import json, sys, urllib.request
work, B = sys.argv[1], "http://127.0.0.1:18121"
def call(path, body, headers={}):
    h = {"X-VaultSync-Protocol": "1", "Content-Type": "application/json", **headers}
    r = urllib.request.Request(B + path, data=json.dumps(body).encode(), headers=h, method="POST")
    return json.loads(urllib.request.urlopen(r).read() or b"{}")
t = call("/auth/signup", {"email": "asof@example.com", "password": "a long password"})
d = call("/devices/register", {"device_name": "bench", "platform": "linux"}, {"Authorization": "Bearer " + t["access_token"]})
open(work + "/token", "w").write(t["access_token"]); open(work + "/device", "w").write(d["device_id"])
PY
vault=$(sql -c "SELECT v.id FROM vaults v JOIN users u ON u.id = v.user_id WHERE u.email = 'asof@example.com'")
device=$(cat "$work/device")
start=$(date +%s)
sql <<SQL
CREATE TEMP TABLE fill AS SELECT g AS n FROM generate_series(1, $files) g;
INSERT INTO blobs (vault_id, content_hash, size_bytes, created_at)
  SELECT '$vault'::uuid, 'sha256:' || lpad(to_hex(n), 64, '0'), 1000, now() - interval '2 hours' FROM fill
  UNION ALL SELECT '$vault'::uuid, 'sha256:a' || lpad(to_hex(n), 63, '0'), 1001, now() - interval '1 hour' FROM fill WHERE n <= $changed;
INSERT INTO file_versions (vault_id, path, version, content_hash, size_bytes, is_deleted, created_at, device_id)
  SELECT '$vault'::uuid, 'notes/n' || n || '.md', 1, 'sha256:' || lpad(to_hex(n), 64, '0'), 1000, false, now() - interval '2 hours', '$device'::uuid FROM fill
  UNION ALL SELECT '$vault'::uuid, 'notes/n' || n || '.md', 2, 'sha256:a' || lpad(to_hex(n), 63, '0'), 1001, false, now() - interval '1 hour', '$device'::uuid FROM fill WHERE n <= $changed;
-- A hundred deleted since (version 3, a tombstone) and a hundred made since.
INSERT INTO file_versions (vault_id, path, version, content_hash, size_bytes, is_deleted, created_at, device_id)
  SELECT '$vault'::uuid, 'notes/n' || n || '.md', CASE WHEN n <= $changed THEN 3 ELSE 2 END, NULL, 0, true, now() - interval '50 minutes', '$device'::uuid FROM fill WHERE n > $files - 100;
INSERT INTO file_versions (vault_id, path, version, content_hash, size_bytes, is_deleted, created_at, device_id)
  SELECT '$vault'::uuid, 'new/m' || g || '.md', 1, 'sha256:b' || lpad(to_hex(g), 63, '0'), 500, false, now() - interval '40 minutes', '$device'::uuid FROM generate_series(1, 100) g;
INSERT INTO blobs (vault_id, content_hash, size_bytes, created_at)
  SELECT '$vault'::uuid, 'sha256:b' || lpad(to_hex(g), 63, '0'), 500, now() FROM generate_series(1, 100) g;
INSERT INTO file_state (vault_id, path, path_key, version, content_hash, size_bytes, updated_at, updated_by, is_deleted, deleted_at, change_seq)
  SELECT DISTINCT ON (path) vault_id, path, lower(path), version, content_hash, size_bytes, created_at, device_id, is_deleted, CASE WHEN is_deleted THEN created_at END,
         row_number() OVER (ORDER BY created_at, path)
  FROM file_versions WHERE vault_id = '$vault' ORDER BY path, version DESC;
UPDATE vaults SET change_seq = (SELECT max(change_seq) FROM file_state WHERE vault_id = '$vault') WHERE id = '$vault';
ANALYZE;
SQL
echo "filled in $(( $(date +%s) - start )) s: $(sql -c "SELECT count(*) FROM file_state WHERE vault_id = '$vault'") paths, $(sql -c "SELECT count(*) FROM file_versions WHERE vault_id = '$vault'") versions"

python3 - "$work" "$files" "$changed" <<'PY'
import json, sys, time, urllib.parse, urllib.request
from datetime import datetime, timedelta, timezone
work, B = sys.argv[1], "http://127.0.0.1:18121"
tok, dev = open(work + "/token").read(), open(work + "/device").read()
H = {"X-VaultSync-Protocol": "1", "Authorization": "Bearer " + tok, "X-VaultSync-Device": dev}
def get(path):
    return json.loads(urllib.request.urlopen(urllib.request.Request(B + path, headers=H)).read())
def post(path, body):
    r = urllib.request.Request(B + path, data=json.dumps(body).encode(), headers={**H, "Content-Type": "application/json"}, method="POST")
    return json.loads(urllib.request.urlopen(r, timeout=600).read() or b"{}")
def iso(moment): return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
t0, c, listed = time.perf_counter(), None, 0
while True:
    s = get("/vault/state?limit=5000" + ("&cursor=" + urllib.parse.quote(c) if c else ""))
    c, listed = s["cursor"], listed + len(s["files"])
    if not s.get("has_more"): break
floor = time.perf_counter() - t0
moment = iso(datetime.now(timezone.utc) - timedelta(minutes=90))
rows = []
for name, body in [("dry run", {"as_of": moment, "dry_run": True}), ("restore", {"as_of": moment})]:
    t0 = time.perf_counter()
    a = post("/vault/restore-as-of", body)
    rows.append((name, time.perf_counter() - t0, a))
made = datetime.strptime(rows[-1][2]["restored_at"].replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z") if "." in rows[-1][2]["restored_at"] else datetime.strptime(rows[-1][2]["restored_at"].replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S%z")
t0 = time.perf_counter()
a = post("/vault/restore-as-of", {"as_of": iso(made - timedelta(seconds=1))})
rows.append(("undo (as of just before the restore)", time.perf_counter() - t0, a))
print(f"{int(sys.argv[2]):,} files, {int(sys.argv[3]):,} rewritten since, 100 deleted and 100 made since")
print(f"| step | wall | ratio to the floor | set back | brought back | deleted |\n|---|---|---|---|---|---|")
print(f"| floor: full state read ({listed:,} files, pages of 5,000) | {floor:.2f} s | 1.0× | | | |")
for name, seconds, a in rows:
    print(f"| {name} | {seconds:.2f} s | {seconds / floor:.1f}× | {len(a['changed']):,} | {len(a['brought_back']):,} | {len(a['deleted']):,} |")
PY
