"""What the benchmarks that run VaultSync's release executables share: ports, the CPU and memory of
processes (the server, Postgres's cluster, the CLI), a generated vault, a server on its embedded
default, and `vaultsync watch` processes."""
import hashlib, json, os, signal, socket, statistics, subprocess, sys, tempfile, time, urllib.request

TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port


def proc_cpu(pid, reaped=False):
    """User + system seconds of a live process (plus its reaped children's when `reaped`)."""
    try: fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except FileNotFoundError: return 0.0
    own = int(fields[11]) + int(fields[12])
    return (own + (int(fields[13]) + int(fields[14]) if reaped else 0)) / TICK


def children_of(parent):
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try: ppid = int(open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError): continue
            if ppid == parent: yield int(entry)


def postgres_cpu(data):
    """The cluster's CPU so far: the postmaster, the backends it reaped, and the live ones."""
    postmaster = int(open(f"{data}/postgres/postmaster.pid").readline())
    return proc_cpu(postmaster, reaped=True) + sum(proc_cpu(pid) for pid in children_of(postmaster))


def postgres_pss_mb(data):
    """The cluster's memory now: the proportional set size of the postmaster and its backends
    (shared buffers counted once, split between the processes that touched them)."""
    postmaster = int(open(f"{data}/postgres/postmaster.pid").readline())
    total = 0
    for pid in [postmaster, *children_of(postmaster)]:
        try: total += next(int(l.split()[1]) for l in open(f"/proc/{pid}/smaps_rollup") if l.startswith("Pss:"))
        except (FileNotFoundError, ProcessLookupError, StopIteration): pass
    return total / 1024


def status_mb(pid, field):
    """A /proc/PID/status memory field in MB: VmRSS (now) or VmHWM (the peak)."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"): return int(line.split()[1]) / 1024
    return 0.0


def timed(command, env):
    """Runs `command` to the end: (wall seconds, its CPU seconds, stdout, peak RSS in MB)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        out.seek(0); err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if code != 0: sys.exit(f"{' '.join(command)} failed ({code}): {stdout[-2000:]}{stderr[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, stdout, usage.ru_maxrss / 1024


def shell(script, env=None):
    return timed(["bash", "-c", script], env or os.environ)


def make_vault(root, notes, attachments=0):
    """NOTES Markdown notes with frontmatter (about 4 KB each, 500 to a folder) and ATTACHMENTS
    binary files of about 760 KB."""
    import random
    body = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 68
    for i in range(notes):
        folder = f"{root}/notes/{i // 500}"
        if i % 500 == 0: os.makedirs(folder, exist_ok=True)
        with open(f"{folder}/note-{i}.md", "w") as f:
            f.write(f"---\ntitle: Note {i}\ntags: [bench, t{i % 17}]\ncreated: 2026-01-{1 + i % 28:02d}\n---\n# Note {i}\n\n{body}\n")
    rng = random.Random(13)
    os.makedirs(f"{root}/attachments", exist_ok=True)
    for i in range(attachments):
        size = 500_000 + rng.randrange(520_000)
        with open(f"{root}/attachments/file-{i}.pdf", "wb") as f: f.write(rng.randbytes(size))


def note_path(i):
    return f"notes/{i // 500}/note-{i}.md"


def differing_files(a, b, skip=(".vaultsync", ".stfolder")):
    """Paths under `a` whose bytes differ in `b` (or are missing there), leaving out the tools' own folders."""
    differ = []
    for folder, dirs, names in os.walk(a):
        dirs[:] = [d for d in dirs if d not in skip]
        for name in names:
            path = os.path.relpath(os.path.join(folder, name), a)
            try: other = open(f"{b}/{path}", "rb").read()
            except FileNotFoundError: differ.append(path); continue
            if hashlib.sha256(open(f"{a}/{path}", "rb").read()).digest() != hashlib.sha256(other).digest(): differ.append(path)
    return differ


def machine(work):
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    memory = int(next(l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal"))) / 1024 / 1024
    filesystem = subprocess.run(["findmnt", "-n", "-o", "FSTYPE,OPTIONS", "-T", work], capture_output=True, text=True).stdout.strip()
    return f"{os.cpu_count()} × {model}, {memory:.0f} GiB, kernel {os.uname().release}, work folder on {filesystem}"


def spread(values, unit=" s", digits=2):
    """Median (min–max)."""
    values = sorted(values)
    return f"{statistics.median(values):.{digits}f}{unit} ({values[0]:.{digits}f}–{values[-1]:.{digits}f})"


class Server:
    """A release `vaultsync-server serve` on its embedded default in FOLDER/server."""

    def __init__(self, server_bin, folder, children, options=()):
        self.data = f"{folder}/server"
        self.url = f"http://127.0.0.1:{free_port()}"
        self.process = subprocess.Popen([server_bin, "serve", "--data-dir", self.data, "--port", self.url.rsplit(":", 1)[1], "--log-level", "error", *options],
                                        stdout=subprocess.DEVNULL, stderr=open(f"{folder}/server.log", "w"))
        children.append(self.process)
        for _ in range(1800):
            try: urllib.request.urlopen(f"{self.url}/health", timeout=1); return
            except Exception: time.sleep(0.1)
        sys.exit(f"the server did not come up: {open(f'{folder}/server.log').read()[-2000:]}")

    def cpu(self):
        """(server, postgres) CPU seconds so far."""
        return proc_cpu(self.process.pid), postgres_cpu(self.data)

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        try: self.process.wait(timeout=120)
        except subprocess.TimeoutExpired: self.process.kill()


def start_watcher(client_bin, folder, log, env, children):
    """A `vaultsync watch --json` of FOLDER writing its events to LOG; returns once its change feed is connected."""
    watcher = subprocess.Popen([client_bin, "watch", folder, "--json"], env=env, stdout=open(log, "w"), stderr=subprocess.STDOUT)
    children.append(watcher)
    deadline = time.time() + 120
    while time.time() < deadline:
        for line in open(log):
            try: event = json.loads(line)
            except ValueError: continue
            if event.get("event") == "connection" and event.get("connected"): return watcher
        if watcher.poll() is not None: break
        time.sleep(0.1)
    sys.exit(f"watcher of {folder} never connected: {open(log).read()[-2000:]}")


def edit_latency(a, b, path, marker, limit=60):
    """Appends MARKER to A/PATH and returns the seconds until B/PATH holds it (polled every 5 ms)."""
    text = open(f"{a}/{path}").read() + f"\n{marker}\n"
    start = time.time()
    with open(f"{a}/{path}", "w") as f: f.write(text)
    while True:
        try:
            if marker in open(f"{b}/{path}").read(): return time.time() - start
        except FileNotFoundError: pass
        if time.time() - start > limit: sys.exit(f"the edit of {path} did not arrive within {limit} s")
        time.sleep(0.005)


def stop_all(children):
    for child in reversed(children):
        if child.poll() is None: child.send_signal(signal.SIGINT)
    for child in reversed(children):
        try: child.wait(timeout=60)
        except subprocess.TimeoutExpired: child.kill()
