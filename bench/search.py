#!/usr/bin/env python3
"""The server's full-text search on a vault of NOTES notes: release `vaultsync-server serve` on its
embedded default, vaults uploaded by a release `vaultsync init` (inline pushes, as a new device
sends notes).

Writes, what keeping texts for search costs: the same NOTES files uploaded as notes (`.md`, whose
texts the write transaction keeps) and as files search leaves alone (`.dat`, the floor: the same
bytes through the same door, nothing indexed), alternately, ROUNDS times each, each into a fresh
server (so that no run pays for the database or the disk an earlier one left; a 200-note upload
warms each server first). Edits, what devices send most: EDITS edits of one note each into a vault
of notes and into one of `.dat` files, alternately in blocks, in the queries' server once it has
settled (autovacuum's work after the uploads done), each one
`POST /vault/push` with the note inline and committed, timed one by one. The slowdown is the ratio
of medians: of wall time, and of the server's and Postgres's CPU.

Queries: `GET /vault/search` on a notes vault, in a server that also holds a second vault of the
notes and one of the `.dat` files: each of a set of queries REPEATS times on one keep-alive
connection (the answer read whole): a word in about one note in three, a word in about one in a
hundred, a word in a few, a two-word phrase, a prefix, two words that must both occur, and a word in
no note; median and p95 of each and of all.

Notes: about 1.2 KB each, 80 words (SEARCH_WORDS in the environment: another count) drawn from a
5,000-word vocabulary with Zipf's frequencies (as text is), frontmatter with a title and tags, 500
notes to a folder.

Usage: [SEARCH_WORDS=N] bench/search.sh [NOTES] [REPEATS] [ROUNDS] [EDITS]   (defaults 100000 100 2 1000)"""
import base64, hashlib, http.client, json, os, random, shutil, statistics, subprocess, sys, tempfile, time, urllib.parse
from benchlib import Server, machine, stop_all

notes, repeats, rounds, edits = (int(a) for a in (sys.argv[1:] + ["100000", "100", "2", "1000"][len(sys.argv) - 1:])[:4])
build = os.environ.get("BUILD", ".build/release")
work = tempfile.mkdtemp(prefix="vaultsync-search-")
os.chmod(work, 0o755)
email, password = "search@example.com", "bench password for search"
env = dict(os.environ, VAULTSYNC_PASSWORD=password)
children = []
rng = random.Random(60)

syllables = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "quo", "din", "ab", "el", "us", "ni", "po", "ra", "te"]
vocabulary = sorted({"".join(rng.choice(syllables) for _ in range(rng.randrange(2, 4))) for _ in range(8000)})[:5000]
rng.shuffle(vocabulary)
weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
common, medium = vocabulary[2], vocabulary[400]


def write_vault(root, extension, count=None):
    words = random.Random(61)
    for i in range(notes if count is None else count):
        folder = f"{root}/notes/{i // 500}"
        if i % 500 == 0: os.makedirs(folder, exist_ok=True)
        text = " ".join(words.choices(vocabulary, weights, k=int(os.environ.get("SEARCH_WORDS", "80"))))
        rare = f" zanzibar{i % 7}" if i % 997 == 0 else ""  # each of zanzibar0…6 in some 14 notes
        with open(f"{folder}/note-{i}.{extension}", "w") as f:
            f.write(f"---\ntitle: Note {i}\ntags: [bench, t{i % 17}]\n---\n# Note {i}\n\n{text}{rare}.\n")


def cli(*args):
    out = subprocess.run([f"{build}/vaultsync", *args], env=env, capture_output=True, text=True)
    if out.returncode != 0: sys.exit(f"{' '.join(args)} failed: {out.stdout}{out.stderr}")


class API:
    """One keep-alive connection signed in as a device of its own."""

    def __init__(self, url, vault, device_name="bench search"):
        self.conn = http.client.HTTPConnection(urllib.parse.urlparse(url).netloc)
        self.headers = {"X-VaultSync-Protocol": "1", "Content-Type": "application/json"}
        tokens = self.call("POST", "/auth/login", {"email": email, "password": password})
        self.headers["Authorization"] = "Bearer " + tokens["access_token"]
        device = self.call("POST", "/devices/register", {"device_name": device_name, "platform": "linux"})
        self.headers["X-VaultSync-Device"] = device["device_id"]
        self.headers["X-VaultSync-Vault"] = vault

    def call(self, method, target, body=None):
        self.conn.request(method, target, body=None if body is None else json.dumps(body), headers=self.headers)
        response = self.conn.getresponse()
        text = response.read()
        if response.status not in (200, 201): sys.exit(f"{method} {target}: {response.status} {text[:500]}")
        return json.loads(text)

    def edit(self, path, text):
        """Pushes TEXT as the second version of PATH, inline and committed, as a device's sync does."""
        data = text.encode()
        file = {"path": path, "content_hash": "sha256:" + hashlib.sha256(data).hexdigest(), "size_bytes": len(data),
                "base_version": 1, "content_base64": base64.b64encode(data).decode()}
        answer = self.call("POST", "/vault/push", {"files": [file], "commit_inline": True})
        if len(answer.get("committed", {}).get("confirmed", [])) != 1: sys.exit(f"the edit of {path} was not committed: {answer}")

    def timed(self, target):
        start = time.perf_counter()
        answer = self.call("GET", target)
        return time.perf_counter() - start, answer


def p95(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]


def upload(server, vault, *options):
    """`vaultsync init` of VAULT: (wall seconds, server + Postgres CPU seconds)."""
    cpu = sum(server.cpu())
    start = time.perf_counter()
    cli("init", vault, "--server", server.url, "--email", email, *options)
    return time.perf_counter() - start, sum(server.cpu()) - cpu


def settle(server, quiet=0.02, most=600):
    """Waits until the server and Postgres have been idle for 5 s (under QUIET CPU-s a second),
    after autovacuum's next round (it wakes once a minute): what an upload leaves it to do is the
    upload's cost, not the edits'."""
    time.sleep(65)
    deadline = time.time() + most
    while time.time() < deadline:
        before = sum(server.cpu())
        time.sleep(5)
        if sum(server.cpu()) - before < 5 * quiet: return
    sys.exit("the server did not settle")


def edit_alternately(server, vaults, blocks=20):
    """EDITS edits of one note each into each of VAULTS (extension → vault name), pushed one by one,
    in BLOCKS alternating blocks so that both kinds meet the same database, autovacuum included:
    extension → (median seconds, server + Postgres CPU per edit)."""
    apis = {extension: API(server.url, vault, f"bench editor {extension}") for extension, vault in vaults.items()}
    latencies, cpu = {extension: [] for extension in vaults}, {extension: 0.0 for extension in vaults}
    for block in range(blocks):
        for extension, api in apis.items():
            edited = random.Random(block)
            before = sum(server.cpu())
            for i in range(block * edits // blocks, (block + 1) * edits // blocks):
                note = i * (notes // edits)
                text = " ".join(edited.choices(vocabulary, weights, k=80))
                start = time.perf_counter()
                api.edit(f"notes/{note // 500}/note-{note}.{extension}", f"---\ntitle: Note {note}\ntags: [bench, edited]\n---\n# Note {note}\n\n{text}.\n")
                latencies[extension].append(time.perf_counter() - start)
            cpu[extension] += sum(server.cpu()) - before
    return {extension: (statistics.median(latencies[extension]), cpu[extension] / edits) for extension in vaults}


try:
    for extension in ("md", "dat"):
        write_vault(f"{work}/source-{extension}", extension)
    write_vault(f"{work}/source-warm", "md", 200)
    uploads = {"md": [], "dat": []}
    for turn in range(rounds):
        for extension in ("dat", "md"):
            folder = f"{work}/writes-{turn}-{extension}"
            os.makedirs(folder)
            os.chmod(folder, 0o755)
            server = Server(f"{build}/vaultsync-server", folder, children)
            shutil.copytree(f"{work}/source-warm", f"{folder}/warm")
            cli("init", f"{folder}/warm", "--server", server.url, "--email", email, "--create-account", "--device-name", "warm")
            shutil.copytree(f"{work}/source-{extension}", f"{folder}/vault")
            uploads[extension].append(upload(server, f"{folder}/vault", "--vault", "v", "--create", "--device-name", "bench"))
            print(f"  round {turn + 1} .{extension}: upload {uploads[extension][-1][0]:.2f} s, {uploads[extension][-1][1]:.2f} CPU-s", flush=True)
            server.stop()
            children.remove(server.process)
            shutil.rmtree(folder, ignore_errors=True)

    os.makedirs(f"{work}/queries")
    os.chmod(f"{work}/queries", 0o755)
    server = Server(f"{build}/vaultsync-server", f"{work}/queries", children)
    for index, extension in enumerate(["md", "md", "dat"]):
        vault = f"{work}/queries/vault-{index}"
        shutil.copytree(f"{work}/source-{extension}", vault)
        if index == 0: cli("init", vault, "--server", server.url, "--email", email, "--create-account", "--device-name", "bench 0")
        else: cli("init", vault, "--server", server.url, "--email", email, "--vault", f"v{index}", "--create", "--device-name", f"bench {index}")
    settle(server)
    edited = edit_alternately(server, {"md": "v1", "dat": "v2"})

    api = API(server.url, "default")
    queries = {
        f"a word in about 1 note in 3 ({common})": common,
        f"a word in about 1 in 100 ({medium})": medium,
        "a word in a few (zanzibar3)": "zanzibar3",
        f'a phrase ("{common} {vocabulary[0]}")': f'"{common} {vocabulary[0]}"',
        f"a prefix ({common[:3]}*)": common[:3] + "*",
        f"two words ({medium} {vocabulary[1]})": f"{medium} {vocabulary[1]}",
        "a word in no note (qqqq)": "qqqq",
    }
    found, times = {}, {}
    for label, query in queries.items():
        target = "/vault/search?" + urllib.parse.urlencode({"q": query})
        first, answer = api.timed(target)
        found[label] = len(answer["results"])
        times[label] = [api.timed(target)[0] for _ in range(repeats)]
    every = [t for values in times.values() for t in values]

    def median(values): return statistics.median(values)
    print(f"machine: {machine(work)}")
    print(f"search on a vault of {notes} notes, {repeats} requests each (median, p95; results shown, at most 20):")
    for label, values in times.items():
        print(f"  {label:<40} {median(values) * 1000:6.1f} ms, {p95(values) * 1000:6.1f} ms  ({found[label]} shown)")
    print(f"  all queries:                             {median(every) * 1000:6.1f} ms, {p95(every) * 1000:6.1f} ms")
    print("writes (wall; server + Postgres CPU):")
    figures = {"uploads": {k: (median(w for w, _ in uploads[k]), median(c for _, c in uploads[k])) for k in uploads}, "edits": edited}
    for kind, what in (("uploads", f"an upload of {notes} files by vaultsync init, each into a fresh server (median of {rounds})"),
                       ("edits", f"an edit of one note ({edits} pushes one by one into each vault, alternately, in the queries' server)")):
        (dat, dat_cpu), (md, md_cpu) = figures[kind]["dat"], figures[kind]["md"]
        scale, unit = (1, "s") if kind == "uploads" else (1000, "ms")
        print(f"  {what}:")
        print(f"    as .dat, not indexed (the floor): {dat * scale:7.2f} {unit}, {dat_cpu * scale:7.2f} CPU-{unit}")
        print(f"    as .md, texts kept for search:    {md * scale:7.2f} {unit}, {md_cpu * scale:7.2f} CPU-{unit}  "
              f"({md / dat:.2f}× the floor's time, {md_cpu / dat_cpu:.2f}× its CPU)")
finally:
    stop_all(children)
    shutil.rmtree(work, ignore_errors=True)
