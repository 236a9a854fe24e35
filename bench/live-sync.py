#!/usr/bin/env python3
"""Live sync, measured as a user runs it: a release `vaultsync-server serve` on its embedded default,
a vault of NOTES notes on two devices, each folder kept by a release `vaultsync watch` at the
default settings. Measures

  1. an idle watcher's CPU and memory over IDLE seconds (the folder and the server both quiet);
  2. edit-to-other-device latency: EDITS edits on A, each timed from the write until B's file holds
     the new bytes (B's file polled every 5 ms), one edit every 2 s.

Usage: bench/live-sync.sh [NOTES] [EDITS] [IDLE]   (defaults 10000 25 60)"""
import json, os, random, signal, socket, statistics, subprocess, sys, tempfile, time, urllib.request

notes, edits, idle = (int(a) for a in (sys.argv[1:] + ["10000", "25", "60"][len(sys.argv) - 1:])[:3])
build = os.environ.get("BUILD", ".build/release")
server_bin, client_bin = f"{build}/vaultsync-server", f"{build}/vaultsync"
work = tempfile.mkdtemp(prefix="vaultsync-live-")
os.chmod(work, 0o755)  # as root, the embedded cluster runs as postgres, who must enter it
env = dict(os.environ, VAULTSYNC_PASSWORD="bench password for live sync")
children = []

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port

def run(*args):
    out = subprocess.run([client_bin, *args], env=env, capture_output=True, text=True)
    if out.returncode != 0: sys.exit(f"{' '.join(args)} failed: {out.stdout}{out.stderr}")
    return out.stdout

def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return int(line.split()[1]) / 1024

def wait_connected(watcher, log):
    deadline = time.time() + 120
    while time.time() < deadline:
        for line in open(log):
            try: event = json.loads(line)
            except ValueError: continue
            if event.get("event") == "connection" and event.get("connected"): return
        time.sleep(0.1)
    sys.exit(f"watcher {watcher.pid} never connected: {open(log).read()[-2000:]}")

try:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([server_bin, "serve", "--data-dir", f"{work}/server", "--port", str(port), "--log-level", "error"],
                              stdout=subprocess.DEVNULL, stderr=open(f"{work}/server.log", "w"))
    children.append(server)
    for _ in range(1800):
        try: urllib.request.urlopen(f"{url}/health", timeout=1); break
        except Exception: time.sleep(0.1)
    else: sys.exit(f"the server did not come up: {open(f'{work}/server.log').read()[-2000:]}")
    a, b = f"{work}/a", f"{work}/b"
    os.makedirs(a)
    body = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 70
    for i in range(notes):
        folder = f"{a}/notes/{i // 500}"
        os.makedirs(folder, exist_ok=True)
        with open(f"{folder}/note-{i}.md", "w") as f: f.write(f"---\ntitle: Note {i}\ntags: [bench]\n---\n# Note {i}\n\n{body}\n")
    run("signup", "--server", url, "--email", "live@example.com")
    run("init", a, "--server", url, "--email", "live@example.com", "--device-name", "a")
    run("init", b, "--server", url, "--email", "live@example.com", "--device-name", "b")
    logs = {}
    watchers = {}
    for name, folder in (("a", a), ("b", b)):
        logs[name] = f"{work}/watch-{name}.log"
        watchers[name] = subprocess.Popen([client_bin, "watch", folder, "--json"], env=env, stdout=open(logs[name], "w"), stderr=subprocess.STDOUT)
        children.append(watchers[name])
    for name in watchers: wait_connected(watchers[name], logs[name])
    time.sleep(5)  # the start syncs and the catch-up after `ready` are done

    pid = watchers["b"].pid
    cpu0, t0 = cpu_seconds(pid), time.time()
    time.sleep(idle)
    cpu = (cpu_seconds(pid) - cpu0) / (time.time() - t0) * 100
    print(f"idle watcher on {notes} notes: {cpu:.2f} % of a core over {idle} s, RSS {rss_mb(pid):.0f} MB "
          f"(the other watcher: RSS {rss_mb(watchers['a'].pid):.0f} MB; server RSS {rss_mb(server.pid):.0f} MB)")

    latencies = []
    for n in range(edits):
        i = random.randrange(notes)
        path = f"notes/{i // 500}/note-{i}.md"
        marker = f"edit {n} {random.random()}"
        text = open(f"{a}/{path}").read() + f"\n{marker}\n"
        start = time.time()
        with open(f"{a}/{path}", "w") as f: f.write(text)
        while True:
            try:
                if marker in open(f"{b}/{path}").read(): break
            except FileNotFoundError: pass
            if time.time() - start > 60: sys.exit(f"edit {n} of {path} did not arrive within 60 s")
            time.sleep(0.005)
        latencies.append(time.time() - start)
        time.sleep(2)
    def sync_seconds(name, reason):
        started, spans = None, []
        for line in open(logs[name]):
            try: event = json.loads(line)
            except ValueError: continue
            stamp = time.mktime(time.strptime(event["time"][:19], "%Y-%m-%dT%H:%M:%S")) + float("0." + (event["time"][20:-1] or "0"))
            if event["event"] == "sync_started": started = stamp if event.get("reason") == reason else None
            elif event["event"] == "sync_finished" and started is not None: spans.append(stamp - started); started = None
        return statistics.median(spans) if spans else float("nan")
    print(f"  median sync on A after an edit {sync_seconds('a', 'local'):.2f} s; on B after the server's message {sync_seconds('b', 'server'):.2f} s")
    def scans(name):
        kinds = [json.loads(line).get("report", {}).get("scanned") for line in open(logs[name]) if '"sync_finished"' in line]
        return f"{kinds.count('changed_paths')} of {len(kinds)} looked only at what changed"
    print(f"  syncs: A {scans('a')}; B {scans('b')}")
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(round(0.95 * (len(latencies) - 1))))]
    print(f"edit to other device ({len(latencies)} edits): median {statistics.median(latencies):.2f} s, "
          f"p95 {p95:.2f} s, min {latencies[0]:.2f} s, max {latencies[-1]:.2f} s")
finally:
    for child in reversed(children):
        if child.poll() is None: child.send_signal(signal.SIGINT)
    for child in reversed(children):
        try: child.wait(timeout=60)
        except subprocess.TimeoutExpired: child.kill()
    subprocess.run(["rm", "-rf", work])
