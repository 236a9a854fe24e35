#!/usr/bin/env python3
"""Live sync, measured as a user runs it: a release `vaultsync-server serve` on its embedded default,
a vault of NOTES notes on two devices, each folder kept by a release `vaultsync watch` at the
default settings. Measures

  1. an idle watcher's CPU and memory over IDLE seconds (the folder and the server both quiet);
  2. edit-to-other-device latency: EDITS edits on A, each timed from the write until B's file holds
     the new bytes (B's file polled every 5 ms), one edit every 2 s;
  3. with LOAD > 0 (issue 35), the same edits again while `vaultsync-bench --load LOAD --url` sends
     the load generator's mix from LOAD other devices (their own users and vaults) to the same server:
     p50 and p99. The generator runs on the same machine, so it takes CPU from the server too.
     Meanwhile a probe asks `GET /health` every 10 ms on a connection of its own (issue 61: an event
     loop that something blocks answers late): p50, p99 and the slowest, quiet and under the load.

Usage: bench/live-sync.sh [NOTES] [EDITS] [IDLE] [LOAD]   (defaults 10000 25 60 0)"""
import http.client, json, os, random, statistics, subprocess, sys, tempfile, threading, time, urllib.parse
from benchlib import Server, edit_latency, make_vault, note_path, proc_cpu, start_watcher, status_mb, stop_all

notes, edits, idle, load = (int(a) for a in (sys.argv[1:] + ["10000", "25", "60", "0"][len(sys.argv) - 1:])[:4])
build = os.environ.get("BUILD", ".build/release")
server_bin, client_bin = f"{build}/vaultsync-server", f"{build}/vaultsync"
work = tempfile.mkdtemp(prefix="vaultsync-live-")
os.chmod(work, 0o755)  # as root, the embedded cluster runs as postgres, who must enter it
env = dict(os.environ, VAULTSYNC_PASSWORD="bench password for live sync")
children = []


def run(*args):
    out = subprocess.run([client_bin, *args], env=env, capture_output=True, text=True)
    if out.returncode != 0: sys.exit(f"{' '.join(args)} failed: {out.stdout}{out.stderr}")
    return out.stdout


try:
    # The load generator signs up its users from loopback, past the default limit per address.
    server = Server(server_bin, work, children, ["--signup-limit", "100000"] if load else [])
    url = server.url
    a, b = f"{work}/a", f"{work}/b"
    make_vault(a, notes)
    run("signup", "--server", url, "--email", "live@example.com")
    run("init", a, "--server", url, "--email", "live@example.com", "--device-name", "a")
    run("init", b, "--server", url, "--email", "live@example.com", "--device-name", "b")
    logs = {}
    watchers = {}
    for name, folder in (("a", a), ("b", b)):
        logs[name] = f"{work}/watch-{name}.log"
        watchers[name] = start_watcher(client_bin, folder, logs[name], env, children)
    time.sleep(5)  # the start syncs and the catch-up after `ready` are done

    pid = watchers["b"].pid
    cpu0, t0 = proc_cpu(pid), time.time()
    time.sleep(idle)
    cpu = (proc_cpu(pid) - cpu0) / (time.time() - t0) * 100
    print(f"idle watcher on {notes} notes: {cpu:.2f} % of a core over {idle} s, RSS {status_mb(pid, 'VmRSS'):.0f} MB "
          f"(the other watcher: RSS {status_mb(watchers['a'].pid, 'VmRSS'):.0f} MB; server RSS {status_mb(server.process.pid, 'VmRSS'):.0f} MB)", flush=True)

    def edit_latencies():
        latencies = []
        for n in range(edits):
            latencies.append(edit_latency(a, b, note_path(random.randrange(notes)), f"edit {n} {random.random()}"))
            time.sleep(2)
        return sorted(latencies)

    def quantile(values, q): return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]

    class Probe:
        """`GET /health` every 10 ms on one keep-alive connection while it runs: each answer's seconds."""
        def __init__(self):
            self.times, self.running = [], True
            self.thread = threading.Thread(target=self.run)
            self.thread.start()
        def run(self):
            conn = http.client.HTTPConnection(urllib.parse.urlparse(url).netloc)
            while self.running:
                start = time.perf_counter()
                conn.request("GET", "/health")
                conn.getresponse().read()
                self.times.append(time.perf_counter() - start)
                time.sleep(max(0.0, 0.01 - (time.perf_counter() - start)))
        def stop(self):
            self.running = False
            self.thread.join()
            times = sorted(self.times)
            return f"GET /health every 10 ms ({len(times)} answers): p50 {statistics.median(times) * 1000:.1f} ms, p99 {quantile(times, 0.99) * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms"

    probe = Probe()
    latencies = edit_latencies()
    quiet_probe = probe.stop()
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
    print(f"edit to other device ({len(latencies)} edits): median {statistics.median(latencies):.2f} s, "
          f"p95 {quantile(latencies, 0.95):.2f} s, min {latencies[0]:.2f} s, max {latencies[-1]:.2f} s\n  {quiet_probe}", flush=True)
    if load:
        # The load generator's devices (its own users and vaults) on the same server, for as long as the edits take.
        # Long enough to outlast the edits even when each takes 4 s: an edit timed after the load
        # ended would be timed on a quiet server.
        generator = subprocess.Popen([f"{build}/vaultsync-bench", "--load", str(load), "--url", server.url, "--seconds", str(edits * 6 + 15)],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        children.append(generator)
        said = []
        for line in generator.stdout:
            said.append(line)
            if "traffic starts" in line: break
        else: sys.exit(f"the load generator ended before its traffic started (exit {generator.wait()}):\n{''.join(said)[-3000:]}")
        time.sleep(5)
        probe = Probe()
        loaded = edit_latencies()
        loaded_probe = probe.stop()
        if generator.poll() is not None: sys.exit("the load generator ended before the edits did: give it longer")
        report = generator.stdout.read()
        if generator.wait() != 0: sys.exit(f"the load generator failed:\n{report}")
        print(f"edit to other device while {load} other devices send the load generator's mix ({len(loaded)} edits): "
              f"p50 {statistics.median(loaded):.2f} s, p99 {quantile(loaded, 0.99):.2f} s, max {loaded[-1]:.2f} s\n  {loaded_probe}\nthe load generator:\n{report}")
finally:
    stop_all(children)
    subprocess.run(["rm", "-rf", work])
