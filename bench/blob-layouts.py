#!/usr/bin/env python3
"""Small blobs without a file each? (issue 61; docs/decisions/0004-small-blobs.md) Two measurements
on this machine's disk, in one run:

  the bound   a first upload (`vaultsync init` of NOTES notes + ATTACHMENTS attachments) and a new
              device, with the server's blob folder on the disk (as shipped) and on tmpfs
              (`<data-dir>/blobs` a link to /dev/shm), alternately, RUNS times each, each into a
              fresh release server on its embedded default. What tmpfs saves is the most any layout
              of small blobs on the disk could save.
  the parts   the notes' bytes written as the file store writes a push's inline notes (a temporary
              file each, one `syncfs` a batch, renamed into place) and as rows of a `bytea` table in
              a Postgres cluster with `fsync` on (a transaction a batch; lz4 where it has it), BATCH
              notes a batch, alternately, RUNS times each. CPU is the whole machine's (/proc/stat).

Usage: bench/blob-layouts.sh [NOTES] [ATTACHMENTS] [RUNS] [BATCH]   (defaults 10000 50 3 400)"""
import ctypes, hashlib, os, statistics, subprocess, sys, tempfile, time, uuid
from benchlib import Server, machine, make_vault, shell, timed

notes, attachments, runs, batch = (int(a) for a in (sys.argv[1:] + ["10000", "50", "3", "400"][len(sys.argv) - 1:])[:4])
build = os.environ.get("BUILD", ".build/release")
work = tempfile.mkdtemp(prefix="vaultsync-layouts-")
os.chmod(work, 0o755)  # as root, the embedded cluster runs as postgres, who must enter it
env = dict(os.environ, VAULTSYNC_PASSWORD="bench password for the blob layouts")
children, links = [], []


def machine_cpu():
    fields = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def median(rows, key): return statistics.median(r[key] for r in rows)


def the_bound(source):
    rows = {"disk": [], "tmpfs": []}
    for index in range(runs):
        for place in rows:
            run = f"{work}/{place}-{index}"
            os.makedirs(f"{run}/server", mode=0o700)
            os.chmod(run, 0o755)
            if place == "tmpfs":
                blobs = tempfile.mkdtemp(prefix="vaultsync-layouts-blobs-", dir="/dev/shm")
                links.append(blobs)
                os.symlink(blobs, f"{run}/server/blobs")
            shell(f"cp -r '{source}' '{run}/a' && mkdir '{run}/b' && sync")
            server = Server(f"{build}/vaultsync-server", run, children)
            try:
                email = f"layouts{index}{place}@example.com"
                timed([f"{build}/vaultsync", "signup", "--server", server.url, "--email", email], env)
                steps = {}
                for step, folder in (("upload", "a"), ("new device", "b")):
                    before = server.cpu()
                    wall, client, _, _ = timed([f"{build}/vaultsync", "init", f"{run}/{folder}", "--server", server.url, "--email", email, "--device-name", folder], env)
                    after = server.cpu()
                    steps[step] = wall
                    steps[step + " CPU"] = client + (after[0] - before[0]) + (after[1] - before[1])
                rows[place].append(steps)
                print(f"run {index + 1}/{runs}, blobs on {place}: upload {steps['upload']:.2f} s, new device {steps['new device']:.2f} s", flush=True)
            finally:
                server.stop()
    print("\n| blob folder | first upload | CPU s (client + server + Postgres) | new device | CPU s |\n|---|---|---|---|---|")
    for place, found in rows.items():
        print(f"| {place} | {median(found, 'upload'):.2f} s | {median(found, 'upload CPU'):.2f} | {median(found, 'new device'):.2f} s | {median(found, 'new device CPU'):.2f} |")


def the_parts(source):
    blobs = []
    for folder, _, names in os.walk(source):
        for name in sorted(names):
            if name.endswith(".md"):
                data = open(os.path.join(folder, name), "rb").read()
                blobs.append((hashlib.sha256(data).hexdigest(), data))
    syncfs = ctypes.CDLL("libc.so.6", use_errno=True).syncfs
    cluster, socket = f"{work}/postgres", f"{work}/socket"
    os.makedirs(cluster)
    os.makedirs(socket)
    subprocess.run(["chown", "postgres", cluster, socket], check=True)
    bindir = subprocess.check_output(["pg_config", "--bindir"], text=True).strip()
    initdb = f"{bindir}/initdb" if os.path.exists(f"{bindir}/initdb") else "initdb"
    pg_ctl = os.path.join(os.path.dirname(initdb), "pg_ctl") if "/" in initdb else "pg_ctl"
    def as_postgres(*command): subprocess.run(["runuser", "-u", "postgres", "--", *command], check=True, capture_output=True)
    def psql(*arguments): subprocess.run(["psql", "-h", socket, "-U", "postgres", "-q", "-v", "ON_ERROR_STOP=1", *arguments], check=True, stdout=subprocess.DEVNULL)
    as_postgres(initdb, "-D", cluster, "-A", "trust", "-U", "postgres")
    as_postgres(pg_ctl, "-D", cluster, "-o", f"-k {socket} -c listen_addresses=''", "-l", f"{cluster}/log", "-w", "start")
    try:
        psql("-c", "CREATE TABLE small_blobs (vault_id uuid, content_hash text, bytes bytea NOT NULL, PRIMARY KEY (vault_id, content_hash))")
        subprocess.run(["psql", "-h", socket, "-U", "postgres", "-q", "-c", "ALTER TABLE small_blobs ALTER COLUMN bytes SET COMPRESSION lz4"], capture_output=True)
        rows = {"a file each": [], "bytea rows": []}
        for index in range(runs):
            vault = str(uuid.uuid4())
            statements = f"{work}/rows-{index}.sql"
            with open(statements, "w") as out:
                for start in range(0, len(blobs), batch):
                    values = ",".join(f"('{vault}','{key}','\\x{data.hex()}')" for key, data in blobs[start:start + batch])
                    out.write(f"BEGIN; INSERT INTO small_blobs VALUES {values}; COMMIT;\n")
            for layout in rows:
                shell("sync")
                cpu, start_time = machine_cpu(), time.time()
                if layout == "bytea rows":
                    psql("-f", statements)
                else:
                    root = f"{work}/blobs-{index}"
                    os.makedirs(f"{root}/tmp")
                    for start in range(0, len(blobs), batch):
                        written = []
                        for key, data in blobs[start:start + batch]:
                            temporary = f"{root}/tmp/{uuid.uuid4()}"
                            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                            os.write(fd, data)
                            os.close(fd)
                            written.append((temporary, key))
                        fd = os.open(f"{root}/tmp", os.O_RDONLY)
                        syncfs(fd)
                        os.close(fd)
                        for temporary, key in written:
                            folder = f"{root}/{vault}/{key[:2]}"
                            os.makedirs(folder, exist_ok=True)
                            os.rename(temporary, f"{folder}/{key}")
                rows[layout].append({"wall": time.time() - start_time, "cpu": machine_cpu() - cpu})
        print(f"\n{len(blobs)} notes, {sum(len(d) for _, d in blobs) / 1e6:.1f} MB, {batch} a batch\n\n| layout | time | CPU s |\n|---|---|---|")
        for layout, found in rows.items():
            print(f"| {layout} | {median(found, 'wall'):.2f} s | {median(found, 'cpu'):.2f} |")
    finally:
        subprocess.run(["runuser", "-u", "postgres", "--", pg_ctl, "-D", cluster, "-m", "fast", "stop"], capture_output=True)


try:
    source = f"{work}/source"
    make_vault(source, notes, attachments)
    print(f"vault: {notes} notes and {attachments} attachments; {runs} runs; {build}\nmachine: {machine(work)}", flush=True)
    the_bound(source)
    the_parts(source)
finally:
    for child in children:
        if child.poll() is None: child.kill()
    subprocess.run(["rm", "-rf", work, *links])
