#!/usr/bin/env python3
"""Two builds crossed, for a before/after comparison on a machine whose speed drifts: each server
build in turn (on its embedded default) gets a vault of 10,000 notes and 50 attachments from one
device, then a new device's `vaultsync init` runs ROUNDS times with each client build, the order
alternating, so that both clients meet the same state of the machine. Prints each pairing's wall
times and the CPU seconds of the client and of the server per `init`.

Usage: bench/crossed.py BEFORE_BUILD AFTER_BUILD [ROUNDS]   (build folders holding both release
binaries, e.g. a clone of the older commit's .build/release; ROUNDS defaults to 4)"""
import os, random, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request

if len(sys.argv) < 3: sys.exit(__doc__)
builds = {"before": sys.argv[1], "after": sys.argv[2]}
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 4
work = tempfile.mkdtemp(prefix="vaultsync-crossed-")
os.chmod(work, 0o755)  # as root, the embedded cluster runs as postgres, who must enter it
env = dict(os.environ, VAULTSYNC_PASSWORD="bench password for crossed builds")
servers = []


def make_vault(root):
    body = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 68
    for i in range(10000):
        folder = f"{root}/notes/{i // 500}"
        os.makedirs(folder, exist_ok=True)
        with open(f"{folder}/note-{i}.md", "w") as f: f.write(f"---\ntitle: Note {i}\n---\n# Note {i}\n\n{body}\n")
    rng = random.Random(13)
    os.makedirs(f"{root}/attachments")
    for i in range(50):
        with open(f"{root}/attachments/file-{i}.pdf", "wb") as f: f.write(rng.randbytes(500_000 + rng.randrange(520_000)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(command):
    """(wall seconds, CPU seconds) of `command`, run to the end."""
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0: sys.exit(f"{' '.join(command)} failed: {child.stderr.read().decode()[-1000:]}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


try:
    source = f"{work}/source"
    make_vault(source)
    results = {}
    for server in builds:
        folder = f"{work}/{server}-server"
        os.makedirs(folder)
        url = f"http://127.0.0.1:{free_port()}"
        process = subprocess.Popen(
            [f"{builds[server]}/vaultsync-server", "serve", "--data-dir", f"{folder}/data", "--port", url.rsplit(":", 1)[1], "--log-level", "error"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        servers.append(process)
        for _ in range(600):
            try: urllib.request.urlopen(f"{url}/health", timeout=1); break
            except Exception: time.sleep(0.1)
        client = f"{builds[server]}/vaultsync"
        run([client, "signup", "--server", url, "--email", "bench@example.com"])
        shutil.copytree(source, f"{folder}/first")
        run([client, "init", f"{folder}/first", "--server", url, "--email", "bench@example.com", "--device-name", "first"])
        for index in range(rounds):
            for side in (["before", "after"] if index % 2 == 0 else ["after", "before"]):
                target = f"{folder}/{side}-{index}"
                os.makedirs(target)
                server_cpu = cpu(process.pid)
                wall, client_cpu = run([f"{builds[side]}/vaultsync", "init", target, "--server", url, "--email", "bench@example.com", "--device-name", f"{side}-{index}"])
                results.setdefault((server, side), []).append((wall, client_cpu, cpu(process.pid) - server_cpu))
        process.send_signal(signal.SIGINT)
        process.wait(timeout=120)
    print("| server | client | new device's `init`, wall (sorted) | client CPU s | server CPU s |")
    print("|---|---|---|---|---|")
    for (server, side), values in sorted(results.items()):
        values.sort()
        print(f"| {server} | {side} | {', '.join(f'{v[0]:.2f}' for v in values)} s | "
              f"{min(v[1] for v in values):.2f}–{max(v[1] for v in values):.2f} | {min(v[2] for v in values):.2f}–{max(v[2] for v in values):.2f} |")
finally:
    for process in servers:
        if process.poll() is None: process.kill()
    shutil.rmtree(work, ignore_errors=True)
