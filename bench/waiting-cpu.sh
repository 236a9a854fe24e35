#!/usr/bin/env bash
# CPU a client spends waiting on a slow server: `vaultsync signup` against a stand-in that answers
# each request after DELAY seconds (default 8), timed with /usr/bin/time. A client waiting on the
# network should use next to no CPU.
# Usage: [CONFIG=debug] bench/waiting-cpu.sh [delay-seconds]   Needs python3 and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
delay=${1:-8}
config=${CONFIG:-release}
swift build -c "$config" --product vaultsync >/dev/null
python3 - "$delay" <<'PY' & stand_in=$!
import socket, sys, threading, time
delay = float(sys.argv[1])
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 18094)); s.listen(16)
def answer(c):
    c.recv(65536); time.sleep(delay)
    c.sendall(b'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'); c.close()
while True:
    c, _ = s.accept(); threading.Thread(target=answer, args=(c,), daemon=True).start()
PY
trap 'kill $stand_in 2>/dev/null || true' EXIT
sleep 0.5
VAULTSYNC_PASSWORD=unused-password /usr/bin/time -f "waited %e s wall; CPU %U s user + %S s system" \
  ".build/$config/vaultsync" signup --server http://127.0.0.1:18094 --email bench@example.com 2>&1 | grep -v '^error:' || true
