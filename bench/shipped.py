#!/usr/bin/env python3
"""The shipped configuration, measured as a user runs it (issue 13): a release `vaultsync-server
serve` as its own process on its embedded default (Postgres with `fsync` on, as shipped), the
release `vaultsync` CLI as separate processes, a vault of NOTES Markdown notes with frontmatter and
ATTACHMENTS binary attachments. Every run starts a new server and measures, with the floor of the
same run beside each step:

  first upload     `vaultsync init` of the filled vault   floor: `cp -r` of it + `sync`; hashing it
  new device       `vaultsync init` of an empty folder    floor: the same `cp -r` + `sync`
  no-op            `vaultsync sync` with nothing changed  floor: `rsync -a` + `sync` of the unchanged vault
                   (the first after the device's own upload, then a later one)
  CHANGES edits    sent by one device, received by the other   floor: `rsync -a` of them + `sync`

CPU seconds are counted per process: the CLI (its rusage), the server (/proc/PID/stat) and Postgres
(the postmaster with its reaped and live backends). Figures are median (min-max) over RUNS.

Usage: bench/shipped.sh [NOTES] [ATTACHMENTS] [RUNS] [CHANGES]   (defaults 10000 50 5 30)
BUILD=.build/release selects the binaries; KEEP=1 keeps the work folder."""
import os, random, statistics, subprocess, sys, tempfile, time
from benchlib import Server, differing_files, machine, make_vault, note_path, shell as run_shell, spread, timed as run_timed

defaults = ["10000", "50", "5", "30"]
notes, attachments, runs, changes = (int(a) for a in (sys.argv[1:] + defaults[len(sys.argv) - 1:])[:4])
build = os.environ.get("BUILD", ".build/release")
server_bin, client_bin = f"{build}/vaultsync-server", f"{build}/vaultsync"
work = tempfile.mkdtemp(prefix="vaultsync-shipped-")
os.chmod(work, 0o755)  # as root, the embedded cluster runs as postgres, who must enter it
env = dict(os.environ, VAULTSYNC_PASSWORD="bench password for the shipped configuration")
children = []


def timed(command): return run_timed(command, env)
def shell(script): return run_shell(script, env)


def vault_bytes(root):
    return sum(os.path.getsize(os.path.join(d, n)) for d, _, names in os.walk(root) for n in names)


results = {}  # step -> list of dicts per run


def record(step, **values):
    results.setdefault(step, []).append(values)


def measure_sync(step, server, folder, floor_wall, command=None):
    """Times one `vaultsync sync` (or `command`) with the CPU of each process, beside the floor of this run."""
    server_before, pg_before = server.cpu()
    wall, client_cpu, _, rss = timed(command or [client_bin, "sync", folder])
    server_after, pg_after = server.cpu()
    record(step, wall=wall, client=client_cpu, server=server_after - server_before, postgres=pg_after - pg_before, floor=floor_wall, rss=rss)
    return wall


def one_run(index, source, total_files):
    run = f"{work}/run-{index}"
    os.makedirs(run)
    os.chmod(run, 0o755)
    a, b, floor, mirror = f"{run}/a", f"{run}/b", f"{run}/floor", f"{run}/mirror"
    # The floor of this run: copying the vault and flushing it to disk; hashing it.
    shell("sync")  # the floor flushes only its own copy
    copy_wall, copy_cpu, _, _ = shell(f"cp -r '{source}' '{floor}' && sync")
    hash_wall, hash_cpu, _, _ = shell(f"find '{source}' -type f -print0 | xargs -0 sha256sum > /dev/null")
    record("floor: cp -r + sync", wall=copy_wall, client=copy_cpu)
    record("floor: hashing (sha256sum)", wall=hash_wall, client=hash_cpu)
    shell(f"cp -r '{source}' '{a}' && mkdir '{b}' && sync")
    server = Server(server_bin, run, children)
    try:
        email = f"bench{index}@example.com"
        timed([client_bin, "signup", "--server", server.url, "--email", email])
        # `init` signs the device in (a password check on the server) and runs the first sync.
        def init(folder, name): return [client_bin, "init", folder, "--server", server.url, "--email", email, "--device-name", name]
        upload = measure_sync("first upload (`init`)", server, a, copy_wall, init(a, "a"))
        record("confirmed versions per second", rate=total_files / upload)
        measure_sync("new device gets the whole vault (`init`)", server, b, copy_wall, init(b, "b"))
        shell(f"rsync -a '{a}/' '{mirror}/' && sync")
        # rsync + sync: VaultSync's writes are durable when it returns, so the floor's are too.
        rsync_noop, _, _, _ = shell(f"rsync -a '{a}/' '{mirror}/' && sync")
        measure_sync("first no-op after the device's own upload", server, a, rsync_noop)
        measure_sync("no-op", server, a, rsync_noop)
        measure_sync("no-op (receiving device)", server, b, rsync_noop)
        rng = random.Random(index)
        for i in rng.sample(range(notes), changes):
            with open(f"{a}/{note_path(i)}", "a") as f: f.write(f"\nedit in run {index}\n")
        rsync_changes, _, _, _ = shell(f"rsync -a '{a}/' '{mirror}/' && sync")
        measure_sync(f"{changes} changed files, sent", server, a, rsync_changes)
        measure_sync(f"{changes} changed files, received", server, b, rsync_changes)
        mismatched = differing_files(a, b)
        if mismatched: sys.exit(f"run {index}: the devices differ in {len(mismatched)} files, e.g. {mismatched[:3]}")
    finally:
        # Runs are removed together at the end: on ext4 without a journal, creating files right
        # after deleting thousands walks the freed inodes (`recently_deleted`) and slows the next run.
        server.stop()


try:
    source = f"{work}/source"
    make_vault(source, notes, attachments)
    total_files = notes + attachments
    print(f"vault: {notes} notes and {attachments} attachments, {vault_bytes(source) / 1e6:.0f} MB; {runs} runs; {build}\n"
          f"machine: {machine(work)}", flush=True)
    for index in range(runs):
        one_run(index, source, total_files)
        print(f"run {index + 1}/{runs}: first upload {results['first upload (`init`)'][-1]['wall']:.2f} s, "
              f"floor {results['floor: cp -r + sync'][-1]['wall']:.2f} s", flush=True)
    print()
    print("| step | VaultSync | floor in the same run | ratio | CPU s: client / server / Postgres (total) | client peak RSS |")
    print("|---|---|---|---|---|---|")
    for step, rows in results.items():
        if step == "confirmed versions per second":
            print(f"| {step} | {spread([r['rate'] for r in rows], unit=' /s', digits=0)} | | | | |")
            continue
        walls = [r["wall"] for r in rows]
        if "floor" not in rows[0]:
            print(f"| {step} | | {spread(walls)} | | {statistics.median(r['client'] for r in rows):.2f} | |")
            continue
        ratios = [r["wall"] / r["floor"] for r in rows]
        cpu = [statistics.median(r[k] for r in rows) for k in ("client", "server", "postgres")]
        print(f"| {step} | {spread(walls)} | {spread([r['floor'] for r in rows])} | {spread(ratios, unit='×', digits=1)} | "
              f"{cpu[0]:.2f} / {cpu[1]:.2f} / {cpu[2]:.2f} ({statistics.median(r['client'] + r['server'] + r['postgres'] for r in rows):.2f}) | "
              f"{max(r['rss'] for r in rows):.0f} MB |")
finally:
    for child in children:
        if child.poll() is None: child.kill()
    if os.environ.get("KEEP") != "1": subprocess.run(["rm", "-rf", work])
