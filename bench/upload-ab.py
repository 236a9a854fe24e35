#!/usr/bin/env python3
"""First uploads of one vault by several builds, interleaved: the A/B behind a change's figures.
For each run and each BUILD (a folder holding `vaultsync-server` and `vaultsync`; BUILD:dat uploads
the same notes renamed `.dat`, which search does not keep, the floor for what keeping texts costs), a
fresh release server on its embedded default and `vaultsync init` of NOTES notes
(`bench/benchlib.py`'s vault, no attachments): the time, and the server's, Postgres's and the
client's CPU. Medians of RUNS. The work folder is WORK (default /dev/shm: the disk's noise out of a
comparison of CPU work).

Usage: python3 bench/upload-ab.py NOTES RUNS BUILD[:dat]...
e.g.   python3 bench/upload-ab.py 10000 4 old/.build/release:dat old/.build/release new/.build/release"""
import os, statistics, subprocess, sys, tempfile
from benchlib import Server, make_vault, shell, timed

notes, runs, builds = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
work = tempfile.mkdtemp(prefix="vaultsync-upload-ab-", dir=os.environ.get("WORK", "/dev/shm"))
os.chmod(work, 0o755)  # as root, the embedded cluster runs as postgres, who must enter it
env = dict(os.environ, VAULTSYNC_PASSWORD="bench password for the upload A/B")
children = []
results = {build: [] for build in builds}
try:
    make_vault(f"{work}/source", notes, 0)
    shell(f"cp -r '{work}/source' '{work}/source-dat' && find '{work}/source-dat' -name '*.md' -exec sh -c 'mv \"$1\" \"${{1%.md}}.dat\"' _ {{}} \\;")
    for index in range(runs):
        for given in builds:
            build, _, kind = given.partition(":")
            run = f"{work}/{index}-{builds.index(given)}"
            os.makedirs(run)
            os.chmod(run, 0o755)
            shell(f"cp -r '{work}/source{'-dat' if kind == 'dat' else ''}' '{run}/a'")
            server = Server(f"{build}/vaultsync-server", run, children)
            try:
                timed([f"{build}/vaultsync", "signup", "--server", server.url, "--email", "ab@example.com"], env)
                server_before, postgres_before = server.cpu()
                wall, client, _, _ = timed([f"{build}/vaultsync", "init", f"{run}/a", "--server", server.url, "--email", "ab@example.com", "--device-name", "a"], env)
                server_after, postgres_after = server.cpu()
                results[given].append((wall, server_after - server_before, postgres_after - postgres_before, client))
                print(f"run {index + 1}/{runs}, {given}: {wall:.2f} s", flush=True)
            finally:
                server.stop()
            shell(f"rm -rf '{run}'")
    print(f"\n{notes} notes, medians of {runs}\n\n| build | first upload | CPU s: server / Postgres / client |\n|---|---|---|")
    for given, rows in results.items():
        wall, server_cpu, postgres_cpu, client = (statistics.median(row[k] for row in rows) for k in range(4))
        print(f"| {given} | {wall:.2f} s | {server_cpu:.2f} / {postgres_cpu:.2f} / {client:.2f} |")
finally:
    for child in children:
        if child.poll() is None: child.kill()
    subprocess.run(["rm", "-rf", work])
