#!/usr/bin/env bash
# Query costs at scale: a release server on its embedded Postgres, filled by SQL with TOTAL files
# (one vault of BIG files, the rest spread over 99 other users' vaults), then, through the API:
# the state call with a cursor after 10 changes in the big vault (timed 200 times; again with
# skip=, issue 58, and a full read with and without a skipped folder), and
# EXPLAIN ANALYZE (auto_explain, every statement the server runs) of a state call, a push of 10 notes
# committed inline, and a push + upload + confirm of one file. Prints the timings and writes the
# plans to PLANS (default /tmp/vaultsync-plans.txt).
# Usage: bench/queries.sh [BIG] [TOTAL] [PLANS]   (default 100000 1000000). Needs python3 and curl.
set -euo pipefail
cd "$(dirname "$0")/.."
big=${1:-100000}
total=${2:-1000000}
plans=${3:-/tmp/vaultsync-plans.txt}
work=$(mktemp -d /tmp/vaultsync-queries-XXXX)
chmod 755 "$work"  # the embedded cluster runs as the postgres user when we are root
server_pid=
trap 'kill $server_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --product vaultsync-server >/dev/null
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
start_server() {
  .build/release/vaultsync-server serve --port 18120 --data-dir "$work/data" --log-level warning >>"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 150); do curl -sf http://127.0.0.1:18120/health >/dev/null && return 0; sleep 0.2; done
  cat "$work/server.log" >&2; exit 1
}
stop_server() { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; }
sql() { "$pgbin/psql" -h "$work/data/postgres" -U postgres -d vaultsync -v ON_ERROR_STOP=1 -qAt "$@"; }
start_server

python3 - "$work" <<'PY'
import json, sys, urllib.request
work, B = sys.argv[1], "http://127.0.0.1:18120"
def call(path, body, headers={}):
    h = {"X-VaultSync-Protocol": "1", "Content-Type": "application/json", **headers}
    r = urllib.request.Request(B + path, data=json.dumps(body).encode(), headers=h, method="POST")
    return json.loads(urllib.request.urlopen(r).read() or b"{}")
t = call("/auth/signup", {"email": "big@example.com", "password": "a long password"})
d = call("/devices/register", {"device_name": "bench", "platform": "linux"}, {"Authorization": "Bearer " + t["access_token"]})
open(work + "/token", "w").write(t["access_token"]); open(work + "/device", "w").write(d["device_id"])
PY
vault=$(sql -c "SELECT v.id FROM vaults v JOIN users u ON u.id = v.user_id WHERE u.email = 'big@example.com'")
per=$(( (total - big) / 99 ))
echo "filling: $big files in the big vault, $per in each of 99 others ($(( big + 99 * per )) in all)"
start=$(date +%s)
sql <<SQL
INSERT INTO users (id, email, created_at) SELECT gen_random_uuid(), 'u' || g || '@example.com', now() FROM generate_series(1, 99) g;
INSERT INTO vaults (id, user_id, name, created_at) SELECT gen_random_uuid(), id, 'default', now() FROM users WHERE email LIKE 'u%@example.com';
CREATE TEMP TABLE fill AS
  SELECT '$vault'::uuid AS vault_id, g AS n FROM generate_series(1, $big) g
  UNION ALL SELECT v.id, g FROM vaults v JOIN users u ON u.id = v.user_id, generate_series(1, $per) g WHERE u.email LIKE 'u%@example.com';
INSERT INTO file_state (vault_id, path, path_key, version, content_hash, size_bytes, updated_at, is_deleted, change_seq)
  SELECT vault_id, 'notes/n' || n || '.md', 'notes/n' || n || '.md', 1, 'sha256:' || lpad(to_hex(n), 64, '0'), 1000, now(), false, n FROM fill;
INSERT INTO file_versions (vault_id, path, version, content_hash, size_bytes, is_deleted, created_at)
  SELECT vault_id, 'notes/n' || n || '.md', 1, 'sha256:' || lpad(to_hex(n), 64, '0'), 1000, false, now() FROM fill;
INSERT INTO blobs (vault_id, content_hash, size_bytes, created_at) SELECT vault_id, 'sha256:' || lpad(to_hex(n), 64, '0'), 1000, now() FROM fill;
UPDATE vaults v SET change_seq = (SELECT max(n) FROM fill f WHERE f.vault_id = v.id) WHERE v.id IN (SELECT DISTINCT vault_id FROM fill);
ANALYZE;
SQL
echo "filled in $(( $(date +%s) - start )) s; file_state rows: $(sql -c 'SELECT count(*) FROM file_state')"

# Through the API: page to the end of the big vault, make 10 changes, time the state call after them.
python3 - "$work" "$big" "$total" <<'PY'
import base64, hashlib, json, sys, time, urllib.parse, urllib.request
work, B = sys.argv[1], "http://127.0.0.1:18120"
tok, dev = open(work + "/token").read(), open(work + "/device").read()
H = {"X-VaultSync-Protocol": "1", "Authorization": "Bearer " + tok, "X-VaultSync-Device": dev}
def get(path):
    return json.loads(urllib.request.urlopen(urllib.request.Request(B + path, headers=H)).read())
def post(path, body):
    r = urllib.request.Request(B + path, data=json.dumps(body).encode(), headers={**H, "Content-Type": "application/json"}, method="POST")
    return json.loads(urllib.request.urlopen(r).read() or b"{}")
cursor, pages = None, 0
while True:
    s = get("/vault/state" + ("?cursor=" + urllib.parse.quote(cursor) if cursor else ""))
    cursor, pages = s["cursor"], pages + 1
    if not s.get("has_more"): break
print(f"full state read in {pages} pages")
files = []
for i in range(1, 11):
    body = f"edited note {i}\n".encode()
    files.append({"path": f"notes/n{i * 997}.md", "content_hash": "sha256:" + hashlib.sha256(body).hexdigest(), "size_bytes": len(body),
                  "base_version": 1, "content_base64": base64.b64encode(body).decode()})
p = post("/vault/push", {"files": files, "commit_inline": True})
assert len(p["committed"]["confirmed"]) == 10, p
def timed_calls(query):
    """200 state calls with the cursor after the 10 changes, sorted milliseconds."""
    timings = []
    for _ in range(200):
        t0 = time.perf_counter()
        s = get("/vault/state?" + query + "cursor=" + urllib.parse.quote(cursor))
        timings.append((time.perf_counter() - t0) * 1000)
        assert len(s["files"]) == 10, len(s["files"])
    return sorted(timings)
timings = timed_calls("")
print(f"state call with a cursor, 10 changes in a vault of {int(sys.argv[2]):,} among {int(sys.argv[3]):,} files: "
      f"p50 {timings[100]:.2f} ms, p99 {timings[198]:.2f} ms, max {timings[-1]:.2f} ms (200 calls, client-side wall time over HTTP)")
# Issue 58: the same call leaving out a folder (skip=, a device's folders left out): the filter's
# cost when it matches nothing, and a full read leaving out the folder that holds the vault's files.
skipped = timed_calls("skip=Archive%2F&")
print(f"the same call with skip=Archive/ (matching nothing): p50 {skipped[100]:.2f} ms, p99 {skipped[198]:.2f} ms")
def full_read(query):
    t0, c, pages, listed = time.perf_counter(), None, 0, 0
    while True:
        s = get("/vault/state?" + query + ("&cursor=" + urllib.parse.quote(c) if c else ""))
        c, pages, listed = s["cursor"], pages + 1, listed + len(s["files"])
        if not s.get("has_more"): break
    return (time.perf_counter() - t0) * 1000, pages, listed
for query in ["limit=2000", "limit=2000&skip=notes%2F"]:
    ms, pages, listed = full_read(query)
    print(f"full state read, {query}: {ms:.0f} ms, {pages} pages, {listed:,} files listed")
open(work + "/cursor", "w").write(cursor)
PY

# Every statement's plan: auto_explain on new connections, then one state call, one committing
# push of 10 notes, and one push + upload + confirm.
sql -c "ALTER DATABASE vaultsync SET session_preload_libraries = 'auto_explain'" \
    -c "ALTER DATABASE vaultsync SET auto_explain.log_min_duration = 0" \
    -c "ALTER DATABASE vaultsync SET auto_explain.log_analyze = on" \
    -c "ALTER DATABASE vaultsync SET auto_explain.log_buffers = on"
stop_server
start_server
log="$work/data/postgres/postgres.log"
: >"$log"
python3 - "$work" <<'PY'
import base64, hashlib, json, sys, urllib.parse, urllib.request
work, B = sys.argv[1], "http://127.0.0.1:18120"
tok, dev, cursor = open(work + "/token").read(), open(work + "/device").read(), open(work + "/cursor").read()
H = {"X-VaultSync-Protocol": "1", "Authorization": "Bearer " + tok, "X-VaultSync-Device": dev}
def post(path, body):
    r = urllib.request.Request(B + path, data=json.dumps(body).encode(), headers={**H, "Content-Type": "application/json"}, method="POST")
    return json.loads(urllib.request.urlopen(r).read() or b"{}")
urllib.request.urlopen(urllib.request.Request(B + "/vault/state?cursor=" + urllib.parse.quote(cursor), headers=H)).read()
files = []
for i in range(11, 21):
    body = f"edited note {i}\n".encode()
    files.append({"path": f"notes/n{i * 997}.md", "content_hash": "sha256:" + hashlib.sha256(body).hexdigest(), "size_bytes": len(body),
                  "base_version": 1, "content_base64": base64.b64encode(body).decode()})
post("/vault/push", {"files": files, "commit_inline": True})
body = b"x" * 100000
p = post("/vault/push", {"files": [{"path": "attachments/a.bin", "content_hash": "sha256:" + hashlib.sha256(body).hexdigest(), "size_bytes": len(body), "base_version": None}]})
up = p["uploads"][0]
urllib.request.urlopen(urllib.request.Request(up["upload_url"], data=body, method="PUT", headers=up.get("upload_headers") or {})).read()
c = post("/vault/push/confirm", {"confirmed": [{"path": "attachments/a.bin", "version": up["new_version"]}]})
assert len(c["confirmed"]) == 1, c
PY
sleep 1
cp "$log" "$plans"
echo "plans of every statement (state call, committing push of 10, push + confirm of 1): $plans ($(grep -c 'duration:' "$plans") statements)"
# With a quota configured, push and confirm read the user's usage (QuotaQueries.usage): from the
# counters the writes keep (vault_usage, migration 27), against the sum it replaced, which read
# every blob and live file of the user's vaults. Both plans for the big vault's user:
user="(SELECT id FROM users WHERE email = 'big@example.com')"
echo "quota usage of the big vault's user from the counters (QuotaQueries.usage, run only when a quota is set):"
sql -c "EXPLAIN (ANALYZE, BUFFERS) SELECT COALESCE(SUM(u.bytes), 0), COALESCE(SUM(u.files), 0) FROM vault_usage u JOIN vaults v ON v.id = u.vault_id WHERE v.user_id = $user" | grep -E "Execution Time|Scan"
echo "the same summed from the vault (QuotaQueries.countedUsage, what it replaced):"
sql -c "EXPLAIN (ANALYZE, BUFFERS) SELECT (SELECT COALESCE(SUM(b.size_bytes), 0) FROM blobs b JOIN vaults v ON v.id = b.vault_id WHERE v.user_id = $user), (SELECT COUNT(*) FROM file_state f JOIN vaults v ON v.id = f.vault_id WHERE v.user_id = $user AND NOT f.is_deleted)" | grep -E "Execution Time"
