#!/usr/bin/env python3
"""Taking a folder back (issue 58): a device that left out `notes/` (NOTES notes of about 4 KB,
500 to a folder) takes it back with `vaultsync folders all`, against a new device fetching the same
vault with `vaultsync init` (the floor: the issue asks for the same speed). Release builds, the
server on its embedded default, each measured REPEATS times in turn in one run.

Usage: bench/folders.sh [NOTES] [REPEATS]   (defaults 10000 3)"""
import os, shutil, statistics, subprocess, sys, tempfile
from benchlib import Server, machine, make_vault, stop_all, timed, differing_files

notes, repeats = (int(a) for a in (sys.argv[1:] + ["10000", "3"][len(sys.argv) - 1:])[:2])
build = os.environ.get("BUILD", ".build/release")
work = tempfile.mkdtemp(prefix="vaultsync-folders-")
os.chmod(work, 0o755)
env = dict(os.environ, VAULTSYNC_PASSWORD="bench password for folders")
children = []


def vaultsync(*args):
    return timed([f"{build}/vaultsync", *args], env)


try:
    server = Server(f"{build}/vaultsync-server", work, children)
    source = f"{work}/source"
    make_vault(source, notes)
    with open(f"{source}/Home.md", "w") as f: f.write("# Home\n")
    link = ["--server", server.url, "--email", "folders@example.com"]
    vaultsync("init", source, *link, "--create-account", "--device-name", "source")
    holder = f"{work}/holder"
    vaultsync("init", holder, *link, "--device-name", "holder")
    fresh, back, leave = [], [], []
    for round in range(repeats):
        target = f"{work}/new-{round}"
        wall, cpu, _, rss = vaultsync("init", target, *link, "--device-name", f"new-{round}")
        fresh.append((wall, cpu, rss))
        if differing_files(source, target): sys.exit("the new device differs from the source")
        shutil.rmtree(target)
        wall, cpu, _, rss = vaultsync("folders", "skip", "notes", "--vault", holder)
        leave.append((wall, cpu, rss))
        if os.path.exists(f"{holder}/notes/0/note-0.md"): sys.exit("the folder left out is still there")
        wall, cpu, _, rss = vaultsync("folders", "all", "--vault", holder)
        back.append((wall, cpu, rss))
        if differing_files(source, holder): sys.exit("the folder taken back differs from the source")

    def line(name, runs):
        walls = [w for w, _, _ in runs]
        return f"| {name} | {statistics.median(walls):.2f} s ({min(walls):.2f}–{max(walls):.2f}) | {statistics.median([c for _, c, _ in runs]):.2f} s | {max(r for _, _, r in runs):.0f} MB |"

    print(f"{notes} notes, {repeats} runs each; {machine(work)}")
    print("| step | wall, median (range) | client CPU, median | client peak RSS |\n|---|---|---|---|")
    print(line("a new device (`init`): the floor", fresh))
    print(line("leaving `notes/` out (`folders skip notes`)", leave))
    print(line("taking it back (`folders all`)", back))
    ratio = statistics.median([w for w, _, _ in back]) / statistics.median([w for w, _, _ in fresh])
    print(f"taking the folder back: {ratio:.2f}× a new device")
finally:
    stop_all(children)
    shutil.rmtree(work, ignore_errors=True)
