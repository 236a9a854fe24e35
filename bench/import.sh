#!/usr/bin/env bash
# Imports that keep history at scale (issue 59): a git repository made by `git fast-import` with
# COMMITS commits over FILES notes (the first adds every note, each later one edits two of them,
# one commit in a hundred renames a note), imported by a release `vaultsync import --from git`
# into a vault of a release server on its embedded default. Timed once each, in this order: the
# floor (git itself reading what the import reads: `git log --raw` of the branch and every blob
# through `git cat-file --batch`), the import (its final sync included), and the same import run
# again (every version held already). Peak client memory from /proc (VmHWM).
# Usage: bench/import.sh [COMMITS] [FILES]   (default 10000 1000). Needs python3, curl and git.
set -euo pipefail
cd "$(dirname "$0")/.."
commits=${1:-10000}
files=${2:-1000}
work=$(mktemp -d /tmp/vaultsync-import-XXXX)
chmod 755 "$work"  # the embedded cluster runs as the postgres user when we are root
server_pid=
trap 'kill $server_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --product vaultsync-server >/dev/null
swift build -c release --product vaultsync >/dev/null
.build/release/vaultsync-server serve --port 18122 --data-dir "$work/data" --log-level warning >>"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 150); do curl -sf http://127.0.0.1:18122/health >/dev/null && break; sleep 0.2; done

start=$(date +%s.%N)
git init -q -b main "$work/repo"
python3 - "$commits" "$files" <<'PY' | git -C "$work/repo" fast-import --quiet
import sys, random
commits, files = int(sys.argv[1]), int(sys.argv[2])
out = sys.stdout.buffer
names = [f"notes/{i // 100}/note {i}.md" for i in range(files)]
def body(i, edit): return (f"---\ntitle: Note {i}\ntags: [bench]\n---\n# Note {i}\n\n" + f"Line of note {i}, edit {edit}.\n" * 20).encode()
rng = random.Random(59)
for c in range(commits):
    who = b"Ana Lima <ana@example.org>" if c % 3 else b"Bo Chen <bo@example.org>"
    t = str(1_600_000_000 + c * 600).encode()
    msg = f"Commit {c}".encode()
    out.write(b"commit refs/heads/main\nauthor " + who + b" " + t + b" +0000\ncommitter " + who + b" " + t + b" +0000\n")
    out.write(b"data %d\n%s\n" % (len(msg), msg))
    changed = range(files) if c == 0 else rng.sample(range(files), 2)
    if c > 0 and c % 100 == 0:
        i = rng.randrange(files)
        new = names[i].replace(".md", f" r{c}.md")
        out.write(f'R "{names[i]}" "{new}"\n'.encode())
        names[i] = new
    for i in changed:
        data = body(i, c)
        out.write(f'M 100644 inline "{names[i]}"\n'.encode() + b"data %d\n" % len(data) + data + b"\n")
PY
git -C "$work/repo" checkout -q main
echo "repository: $commits commits, $files files, made in $(echo "$(date +%s.%N) - $start" | bc) s ($(du -sh "$work/repo/.git" | cut -f1))"

seconds() { local t0=$(date +%s.%N); "$@" >/dev/null; echo "$(date +%s.%N) - $t0" | bc; }
floor=$(seconds bash -c "git -C '$work/repo' log --reverse --first-parent --raw -z -M --no-abbrev main >/dev/null && git -C '$work/repo' cat-file --batch-all-objects --batch >/dev/null")

export VAULTSYNC_PASSWORD="a long bench password"
.build/release/vaultsync init "$work/vault" --server http://127.0.0.1:18122 --email import@example.com --create-account >/dev/null
peak() {  # runs the command, printing its wall time and its peak RSS in MB
  local t0=$(date +%s.%N)
  "$@" >"$work/out.json" &
  local pid=$! hwm=0
  while kill -0 $pid 2>/dev/null; do
    h=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0); [ "${h:-0}" -gt "$hwm" ] && hwm=$h; sleep 0.05
  done
  wait $pid
  echo "$(echo "$(date +%s.%N) - $t0" | bc) $((hwm / 1024))"
}
read first first_mb < <(peak .build/release/vaultsync import --from git "$work/repo" --vault "$work/vault" --json)
versions=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['imported']; print(r['versions'], r['files'], len(r['rejected']))" "$work/out.json")
read again again_mb < <(peak .build/release/vaultsync import --from git "$work/repo" --vault "$work/vault" --json)
skipped=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['imported']['skipped'])" "$work/out.json")
printf 'floor (git log --raw + cat-file of every object): %.2f s\n' "$floor"
printf 'import: %.2f s (%.1fx the floor), peak %s MB; versions, files, refused: %s\n' "$first" "$(echo "$first / $floor" | bc -l)" "$first_mb" "$versions"
printf 'the same import again: %.2f s, peak %s MB; %s versions held already\n' "$again" "$again_mb" "$skipped"
