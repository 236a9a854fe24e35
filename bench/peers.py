#!/usr/bin/env python3
"""VaultSync beside Syncthing (issue 35): the same generated vault, the same steps, in the same run,
on loopback, with the floor of the run beside them. For each vault size in SIZES:

  first device      VaultSync: `vaultsync init` of the filled folder (uploads it to the server)
                    Syncthing: the folder added to device A until A has scanned it (idle, every file indexed)
  new device        VaultSync: `vaultsync init` of an empty folder on device B
                    Syncthing: the folder added to device B (A connected) until B holds every file
                    floor: `cp -r` of the vault + `sync`
  CHANGES edits     VaultSync: `vaultsync sync` on A, then on B
                    Syncthing: a rescan of A asked for through its API, until B holds every edit
  an edit, live     an edit on A timed until B's file holds it, EDITS times, every tool at its defaults:
                    `vaultsync watch` on both; Syncthing with its watcher (fsWatcherDelayS 10), and again
                    with fsWatcherDelayS 1

CPU seconds are per process: VaultSync's CLI, server and Postgres; Syncthing's two instances. Memory
is the peak RSS of the receiving device's process, and of VaultSync's server and Postgres (PSS).
Syncthing runs as Debian ships it, with discovery, relays, NAT and usage reporting off (loopback only).
Writes the tables to stdout, and the figures (peers.json) and SVG charts to CHARTS (default docs/charts).

Usage: bench/peers.sh [SIZES] [EDITS] [CHANGES]   (defaults 1000,10000,30000 5 30)
       python3 bench/peers.py --charts docs/charts/peers.json   (draws the charts again from a run's figures)"""
import json, os, random, statistics, subprocess, sys, tempfile, time, urllib.request
import xml.etree.ElementTree as ET
from benchlib import (Server, children_of, differing_files, edit_latency, free_port, machine, make_vault, note_path,
                      postgres_pss_mb, proc_cpu, shell, start_watcher, status_mb, stop_all, timed)
import svgchart

redraw = sys.argv[2] if sys.argv[1:2] == ["--charts"] and len(sys.argv) > 2 else None
given = [] if redraw else sys.argv[1:]
args = given + ["1000,10000,30000", "5", "30"][len(given):]
sizes = [int(s) for s in args[0].split(",")]
edits, changes = int(args[1]), int(args[2])
build = os.environ.get("BUILD", ".build/release")
charts = os.environ.get("CHARTS", "docs/charts")
server_bin, client_bin = f"{build}/vaultsync-server", f"{build}/vaultsync"
work = tempfile.mkdtemp(prefix="vaultsync-peers-")
os.chmod(work, 0o755)  # as root, the embedded cluster runs as postgres, who must enter it
env = dict(os.environ, VAULTSYNC_PASSWORD="bench password for the peer comparison")
API_KEY = "vaultsync-peers-bench-key"
FOLDER = "vault"
children = []


def edit_files(root, count, seed, marker):
    """Appends MARKER to COUNT notes of ROOT; returns their paths."""
    notes = sum(len(n) for _, _, n in os.walk(f"{root}/notes"))
    paths = [note_path(i) for i in random.Random(seed).sample(range(notes), count)]
    for path in paths:
        with open(f"{root}/{path}", "a") as f: f.write(f"\n{marker}\n")
    return paths


def wait_for(paths, root, marker, limit=600):
    start = time.time()
    while any(marker not in open(f"{root}/{p}").read() for p in paths):
        if time.time() - start > limit: sys.exit(f"the {len(paths)} edits did not reach {root} within {limit} s")
        time.sleep(0.02)


class Syncthing:
    """One Syncthing instance (`syncthing serve --no-restart`) with its own home, on loopback."""

    def __init__(self, home, name):
        self.home, self.name = home, name
        self.gui, self.listen = free_port(), free_port()
        subprocess.run(["syncthing", "generate", f"--home={home}", "--no-default-folder"], check=True, capture_output=True)
        self.id = subprocess.run(["syncthing", "serve", f"--home={home}", "--device-id"], check=True, capture_output=True, text=True).stdout.strip()
        config = ET.parse(f"{home}/config.xml")
        options = config.getroot().find("options")
        for key, value in {"listenAddress": f"tcp://127.0.0.1:{self.listen}", "globalAnnounceEnabled": "false",
                           "localAnnounceEnabled": "false", "relaysEnabled": "false", "natEnabled": "false", "urAccepted": "-1",
                           "autoUpgradeIntervalH": "0", "crashReportingEnabled": "false", "startBrowser": "false"}.items():
            options.find(key).text = value
        config.write(f"{home}/config.xml")

    def start(self):
        self.process = subprocess.Popen(["syncthing", "serve", f"--home={self.home}", "--no-browser", "--no-restart", "--no-upgrade",
                                         f"--gui-address=127.0.0.1:{self.gui}", f"--gui-apikey={API_KEY}"],
                                        stdout=open(f"{self.home}/log.txt", "w"), stderr=subprocess.STDOUT)
        children.append(self.process)
        for _ in range(600):
            try: self.api("GET", "/rest/system/ping"); return
            except Exception: time.sleep(0.1)
        sys.exit(f"syncthing {self.name} did not start: {open(f'{self.home}/log.txt').read()[-2000:]}")

    def api(self, method, path, body=None):
        request = urllib.request.Request(f"http://127.0.0.1:{self.gui}{path}", method=method, headers={"X-API-Key": API_KEY, "Content-Type": "application/json"},
                                         data=None if body is None else json.dumps(body).encode())
        with urllib.request.urlopen(request, timeout=3600) as response:
            data = response.read()
            return json.loads(data) if data else None

    def add_device(self, other):
        self.api("POST", "/rest/config/devices", {"deviceID": other.id, "name": other.name, "addresses": [f"tcp://127.0.0.1:{other.listen}"]})

    def add_folder(self, path, devices):
        self.api("POST", "/rest/config/folders", {"id": FOLDER, "label": FOLDER, "path": path, "type": "sendreceive",
                                                  "devices": [{"deviceID": d.id} for d in devices]})

    def wait_complete(self, files, limit=3600):
        """Until the folder is idle with FILES files of its own and nothing left to fetch."""
        start = time.time()
        while time.time() - start < limit:
            status = self.api("GET", f"/rest/db/status?folder={FOLDER}")
            if status["state"] == "idle" and status["localFiles"] == files and status["needFiles"] == 0: return
            time.sleep(0.1)
        sys.exit(f"syncthing {self.name} did not finish within {limit} s: {status}")

    def wait_connected(self, other, limit=120):
        start = time.time()
        while time.time() - start < limit:
            if self.api("GET", "/rest/system/connections")["connections"].get(other.id, {}).get("connected"): return
            time.sleep(0.1)
        sys.exit(f"syncthing {self.name} never connected to {other.name}")

    def processes(self):
        # `syncthing serve` runs as a monitor process and the syncing process it starts.
        return [self.process.pid, *children_of(self.process.pid)]

    def cpu(self):
        return sum(proc_cpu(pid) for pid in self.processes())

    def peak_mb(self):
        """The syncing process's peak RSS (the monitor's is a few MB)."""
        return max(status_mb(pid, "VmHWM") for pid in self.processes())


results = {}  # (size, tool, step) -> dict


def record(size, tool, step, **values):
    results[(size, tool, step)] = values


def live_edits(size, tool, a, b, seed):
    rng = random.Random(seed)
    latencies = []
    for n in range(edits):
        latencies.append(edit_latency(a, b, note_path(rng.randrange(size)), f"live edit {n} {rng.random()}"))
        time.sleep(1)
    record(size, tool, "an edit, live", wall=statistics.median(latencies), worst=max(latencies))


def vaultsync(size, source, run):
    a, b = f"{run}/vs-a", f"{run}/vs-b"
    shell(f"cp -r '{source}' '{a}' && mkdir '{b}' && sync")
    server = Server(server_bin, run, children)
    try:
        email = f"peers{size}@example.com"
        timed([client_bin, "signup", "--server", server.url, "--email", email], env)

        def step(name, command):
            server_before, pg_before = server.cpu()
            wall, client_cpu, _, rss = timed(command, env)
            server_after, pg_after = server.cpu()
            record(size, "VaultSync", name, wall=wall, cpu=client_cpu + server_after - server_before + pg_after - pg_before, rss=rss)

        def init(folder, name): return [client_bin, "init", folder, "--server", server.url, "--email", email, "--device-name", name]
        step("first device", init(a, "a"))
        step("new device", init(b, "b"))
        record(size, "VaultSync server", "memory", server=status_mb(server.process.pid, "VmHWM"), postgres=postgres_pss_mb(server.data))
        paths = edit_files(a, changes, size, "changed by the bench")
        server_before, pg_before = server.cpu()
        start = time.perf_counter()
        _, cpu_a, _, _ = timed([client_bin, "sync", a], env)
        _, cpu_b, _, _ = timed([client_bin, "sync", b], env)
        wall = time.perf_counter() - start
        if any("changed by the bench" not in open(f"{b}/{p}").read() for p in paths): sys.exit("VaultSync's sync on B did not bring the edits")
        server_after, pg_after = server.cpu()
        record(size, "VaultSync", f"{changes} edits", wall=wall, cpu=cpu_a + cpu_b + server_after - server_before + pg_after - pg_before)
        watchers = [start_watcher(client_bin, folder, f"{run}/watch-{name}.log", env, children) for name, folder in (("a", a), ("b", b))]
        time.sleep(3)  # the start syncs are done
        live_edits(size, "VaultSync", a, b, size)
        stop_all(watchers)
        if differing_files(a, b): sys.exit(f"VaultSync's devices differ: {differing_files(a, b)[:3]}")
    finally:
        server.stop()


def syncthing(size, source, run):
    a, b = f"{run}/st-a", f"{run}/st-b"
    shell(f"cp -r '{source}' '{a}' && sync")
    first, second = Syncthing(f"{run}/st-home-a", "a"), Syncthing(f"{run}/st-home-b", "b")
    first.start()
    first.add_device(second)
    start, cpu = time.perf_counter(), first.cpu()
    first.add_folder(a, [first, second])
    first.wait_complete(size)
    record(size, "Syncthing", "first device", wall=time.perf_counter() - start, cpu=first.cpu() - cpu)
    second.start()
    second.add_device(first)
    first.wait_connected(second)
    start, cpu = time.perf_counter(), first.cpu() + second.cpu()
    second.add_folder(b, [first, second])
    second.wait_complete(size)
    record(size, "Syncthing", "new device", wall=time.perf_counter() - start, cpu=first.cpu() + second.cpu() - cpu, rss=second.peak_mb())
    paths = edit_files(a, changes, size, "changed by the bench")
    start, cpu = time.perf_counter(), first.cpu() + second.cpu()
    first.api("POST", f"/rest/db/scan?folder={FOLDER}")
    wait_for(paths, b, "changed by the bench")
    record(size, "Syncthing", f"{changes} edits", wall=time.perf_counter() - start, cpu=first.cpu() + second.cpu() - cpu)
    time.sleep(2)
    live_edits(size, "Syncthing", a, b, size)
    for instance in (first, second):
        instance.api("PATCH", f"/rest/config/folders/{FOLDER}", {"fsWatcherDelayS": 1})
    time.sleep(5)  # the folders restart with the new delay
    live_edits(size, "Syncthing, fsWatcherDelayS 1", a, b, size + 1)
    time.sleep(12)  # the last edit's echo (Syncthing's own metadata) settles
    if differing_files(a, b): sys.exit(f"Syncthing's devices differ: {differing_files(a, b)[:3]}")
    stop_all([second.process, first.process])


def draw_charts(results, sizes):
    def points(tool, step, key="wall", per_file=False):
        return [(n, results[(n, tool, step)][key] / (n if per_file else 1) * (1000 if per_file else 1)) for n in sizes]
    svgchart.line_chart(f"{charts}/new-device.svg", "A new device gets the whole vault", "notes in the vault", "seconds (log scale)",
                        {"VaultSync": points("VaultSync", "new device"), "Syncthing": points("Syncthing", "new device"),
                         "floor: cp -r + sync": points("floor (cp -r + sync)", "new device")}, log_y=True, y_unit=" s")
    svgchart.line_chart(f"{charts}/cpu-per-file.svg", "CPU per file", "notes in the vault", "CPU milliseconds per file",
                        {"VaultSync, new device": points("VaultSync", "new device", "cpu", True),
                         "Syncthing, new device": points("Syncthing", "new device", "cpu", True),
                         "VaultSync, first device": points("VaultSync", "first device", "cpu", True),
                         "Syncthing, first device": points("Syncthing", "first device", "cpu", True)}, y_unit=" ms")
    svgchart.line_chart(f"{charts}/memory.svg", "Peak memory of the receiving device", "notes in the vault", "MB (peak RSS)",
                        {"VaultSync CLI": points("VaultSync", "new device", "rss"), "Syncthing": points("Syncthing", "new device", "rss"),
                         "VaultSync server": [(n, results[(n, "VaultSync server", "memory")]["server"]) for n in sizes]}, y_unit=" MB")
    svgchart.line_chart(f"{charts}/live-edit.svg", "An edit reaches the other device (live)", "notes in the vault", "seconds (median)",
                        {"VaultSync": points("VaultSync", "an edit, live"), "Syncthing (default)": points("Syncthing", "an edit, live"),
                         "Syncthing, 1 s delay": points("Syncthing, fsWatcherDelayS 1", "an edit, live")}, y_unit=" s")


if redraw:
    # Draws the charts again from a run's peers.json, without running anything.
    os.rmdir(work)
    rows = json.load(open(redraw))
    sizes = sorted({r["notes"] for r in rows})
    draw_charts({(r.pop("notes"), r.pop("tool"), r.pop("step")): r for r in rows}, sizes)
    sys.exit(0)

try:
    subprocess.run(["syncthing", "--version"], check=True, capture_output=True)
    print(f"machine: {machine(work)}\n{subprocess.run(['syncthing', '--version'], capture_output=True, text=True).stdout.strip()}", flush=True)
    for size in sizes:
        run = f"{work}/{size}"
        os.makedirs(run); os.chmod(run, 0o755)
        source = f"{run}/source"
        make_vault(source, size)
        shell("sync")  # the floor flushes only its own copy
        floor_wall, floor_cpu, _, _ = shell(f"cp -r '{source}' '{run}/floor' && sync")
        record(size, "floor (cp -r + sync)", "new device", wall=floor_wall, cpu=floor_cpu)
        vaultsync(size, source, run)
        syncthing(size, source, run)
        # Runs are removed together at the end: deleting thousands of files right before the next
        # size's floor made its `sync` wait for the freed blocks' discards (3 s instead of 0.3 s).
        print(f"{size} notes done", flush=True)

    steps = ["first device", "new device", f"{changes} edits", "an edit, live"]
    tools = ["VaultSync", "Syncthing", "Syncthing, fsWatcherDelayS 1", "floor (cp -r + sync)"]
    print(f"\n| notes | step | VaultSync | Syncthing | Syncthing ÷ VaultSync | floor | CPU s: VaultSync / Syncthing |")
    print("|---|---|---|---|---|---|---|")
    for size in sizes:
        for step in steps:
            v, s = results.get((size, "VaultSync", step)), results.get((size, "Syncthing", step))
            floor = results.get((size, "floor (cp -r + sync)", step))
            live = step == "an edit, live"
            def show(r): return "" if r is None else f"{r['wall']:.2f} s" + (f" (max {r['worst']:.2f})" if live else "")
            cpu = "" if live else f"{v['cpu']:.2f} / {s['cpu']:.2f}"
            print(f"| {size:,} | {step} | {show(v)} | {show(s)} | {s['wall'] / v['wall']:.1f}× | {show(floor)} | {cpu} |")
            if live:
                fast = results[(size, "Syncthing, fsWatcherDelayS 1", step)]
                print(f"| {size:,} | {step}, Syncthing with fsWatcherDelayS 1 | | {show(fast)} | {fast['wall'] / v['wall']:.1f}× | | |")
    print("\n| notes | peak RSS, receiving device: VaultSync CLI / Syncthing | VaultSync server / Postgres (PSS) after the new device |")
    print("|---|---|---|")
    for size in sizes:
        memory = results[(size, "VaultSync server", "memory")]
        print(f"| {size:,} | {results[(size, 'VaultSync', 'new device')]['rss']:.0f} MB / {results[(size, 'Syncthing', 'new device')]['rss']:.0f} MB | "
              f"{memory['server']:.0f} MB / {memory['postgres']:.0f} MB |")

    # The figures the charts show, so that they can be drawn again (`bench/peers.py --charts FILE`).
    os.makedirs(charts, exist_ok=True)
    with open(f"{charts}/peers.json", "w") as f:
        json.dump([{"notes": n, "tool": tool, "step": step, **values} for (n, tool, step), values in results.items()], f, indent=1)
    draw_charts(results, sizes)
    print(f"\ncharts: {charts}/new-device.svg, cpu-per-file.svg, memory.svg, live-edit.svg")
finally:
    stop_all(children)
    if os.environ.get("KEEP") != "1": subprocess.run(["rm", "-rf", work])
