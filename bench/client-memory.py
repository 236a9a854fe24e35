#!/usr/bin/env python3
"""The client's memory (issue 61) on NOTES generated notes (`benchlib.make_vault`, 500 to a folder):
a first upload (`vaultsync init` of the vault), a new device (`init` of an empty folder) and a no-op
`sync`, each run once under heaptrack (its peak heap; `heaptrack_print` of the kept files says who
held it) and, for the no-op, RUNS times under `/usr/bin/time` (peak RSS, wall and CPU, medians).
The server is a release `vaultsync-server serve` on its embedded default; the work folder is
TMPDIR's. heaptrack's files are left in the work folder's `heap-*.zst` when KEEP is set.

Usage: bench/client-memory.py [NOTES] [RUNS]   (defaults 100000 5; BUILD=… for another .build/release)
"""
import os, re, shutil, statistics, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import Server, make_vault, machine, stop_all

notes, runs = (int(a) for a in (sys.argv[1:] + ["100000", "5"][len(sys.argv) - 1:])[:2])
build = os.environ.get("BUILD", ".build/release")
work = tempfile.mkdtemp(prefix="vaultsync-memory-")
os.chmod(work, 0o755)
env = dict(os.environ, VAULTSYNC_PASSWORD="bench password for memory")
children = []


def run(args, heap=None):
    """Runs the CLI with ARGS (under heaptrack, writing HEAP, when given); exits on failure."""
    prefix = ["heaptrack", "-o", f"{work}/{heap}"] if heap else []
    out = subprocess.run([*prefix, f"{build}/vaultsync", *args], env=env, capture_output=True, text=True)
    if out.returncode != 0: sys.exit(f"{' '.join(args)} failed: {out.stdout[-2000:]}{out.stderr[-2000:]}")
    return out


def peak_heap(heap):
    """heaptrack's peak heap in MB."""
    out = subprocess.run(["heaptrack_print", "-f", f"{work}/{heap}.zst", "--print-peaks", "1", "--print-allocators", "0",
                          "--print-temporary", "0", "--print-leaks", "0", "--peak-limit", "1", "--sub-peak-limit", "1"],
                         capture_output=True, text=True).stdout
    peak = re.search(r"peak heap memory consumption: ([\d.]+)([KMG])", out)
    scale = {"K": 1 / 1024, "M": 1, "G": 1024}
    return float(peak.group(1)) * scale[peak.group(2)] if peak else float("nan")


try:
    make_vault(f"{work}/a", notes, 0)
    server = Server(f"{build}/vaultsync-server", work, children)
    account = ["--server", server.url, "--email", "memory@example.com"]
    run(["init", f"{work}/a", *account, "--create-account", "--device-name", "first"], heap="heap-upload")
    run(["init", f"{work}/b", *account, "--device-name", "second"], heap="heap-new-device")
    run(["sync", f"{work}/a"])
    run(["sync", f"{work}/a"], heap="heap-no-op")
    timed = []
    for _ in range(runs):
        out = subprocess.run(["/usr/bin/time", "-f", "%M %e %U %S", f"{build}/vaultsync", "sync", f"{work}/a"], env=env, capture_output=True, text=True)
        if out.returncode != 0: sys.exit(f"a no-op failed: {out.stderr[-2000:]}")
        kb, wall, user, system = out.stderr.strip().splitlines()[-1].split()
        timed.append((int(kb) / 1024, float(wall), float(user) + float(system)))
    print(f"machine: {machine(work)}")
    print(f"client memory on {notes} notes ({build}):")
    for label, heap in (("first upload (init)", "heap-upload"), ("new device (init)", "heap-new-device"), ("no-op (sync)", "heap-no-op")):
        print(f"  {label:<22} peak heap {peak_heap(heap):7.1f} MB")
    print(f"  no-op, {runs} runs (median): peak RSS {statistics.median(t[0] for t in timed):.0f} MB, "
          f"{statistics.median(t[1] for t in timed):.2f} s, {statistics.median(t[2] for t in timed):.2f} CPU-s")
finally:
    stop_all(children)
    if not os.environ.get("KEEP"): shutil.rmtree(work, ignore_errors=True)
