#!/usr/bin/env python3
"""The server's full-text search on a vault of NOTES notes: a release `vaultsync-server serve` on
its embedded default, each vault uploaded by a release `vaultsync init` (inline pushes, as a new
device sends notes).

Writes: the same NOTES files uploaded four times into four vaults of one account, alternately as
notes (`.md`, whose texts the write transaction keeps for search) and as files search leaves alone
(`.dat`, the floor: the same bytes through the same door, nothing indexed), md, dat, md, dat. The
slowdown is the ratio of the medians of wall time, and of the server's and Postgres's CPU.

Queries: `GET /vault/search` on the first notes vault, each of a set of queries REPEATS times on one
keep-alive connection (the answer read whole): a word in about one note in three, a word in about
one in a hundred, a word in a few, a two-word phrase, a prefix, two words that must both occur, and
a word in no note; median and p95 of each and of all. The floor: `GET /vault/usage` (at this size it
sums every blob of the account: seconds, not the cheap request it is on a small vault).

Notes: about 1.2 KB each, 80 words drawn from a 5,000-word vocabulary with Zipf's frequencies (as
text is), frontmatter with a title and tags, 500 notes to a folder.

Usage: bench/search.sh [NOTES] [REPEATS]   (defaults 100000 100)"""
import http.client, json, os, random, shutil, statistics, subprocess, sys, tempfile, time, urllib.parse
from benchlib import Server, machine, stop_all

notes, repeats = (int(a) for a in (sys.argv[1:] + ["100000", "100"][len(sys.argv) - 1:])[:2])
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


def write_vault(root, extension):
    words = random.Random(61)
    for i in range(notes):
        folder = f"{root}/notes/{i // 500}"
        if i % 500 == 0: os.makedirs(folder, exist_ok=True)
        text = " ".join(words.choices(vocabulary, weights, k=80))
        rare = f" zanzibar{i % 7}" if i % 997 == 0 else ""  # each of zanzibar0…6 in some 14 notes
        with open(f"{folder}/note-{i}.{extension}", "w") as f:
            f.write(f"---\ntitle: Note {i}\ntags: [bench, t{i % 17}]\n---\n# Note {i}\n\n{text}{rare}.\n")


def cli(*args):
    out = subprocess.run([f"{build}/vaultsync", *args], env=env, capture_output=True, text=True)
    if out.returncode != 0: sys.exit(f"{' '.join(args)} failed: {out.stdout}{out.stderr}")


class API:
    """One keep-alive connection signed in as a device of its own."""

    def __init__(self, url, vault):
        self.conn = http.client.HTTPConnection(urllib.parse.urlparse(url).netloc)
        self.headers = {"X-VaultSync-Protocol": "1", "Content-Type": "application/json"}
        tokens = self.call("POST", "/auth/login", {"email": email, "password": password})
        self.headers["Authorization"] = "Bearer " + tokens["access_token"]
        device = self.call("POST", "/devices/register", {"device_name": "bench search", "platform": "linux"})
        self.headers["X-VaultSync-Device"] = device["device_id"]
        self.headers["X-VaultSync-Vault"] = vault

    def call(self, method, target, body=None):
        self.conn.request(method, target, body=None if body is None else json.dumps(body), headers=self.headers)
        response = self.conn.getresponse()
        text = response.read()
        if response.status not in (200, 201): sys.exit(f"{method} {target}: {response.status} {text[:500]}")
        return json.loads(text)

    def timed(self, target):
        start = time.perf_counter()
        answer = self.call("GET", target)
        return time.perf_counter() - start, answer


def p95(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]


try:
    server = Server(f"{build}/vaultsync-server", work, children)
    for extension in ("md", "dat"):
        write_vault(f"{work}/source-{extension}", extension)
    uploads = {"md": [], "dat": []}
    for index, extension in enumerate(["md", "dat", "md", "dat"]):
        vault = f"{work}/vault-{index}"
        shutil.copytree(f"{work}/source-{extension}", vault)
        link = ["--server", server.url, "--email", email]
        if index == 0:
            cli("init", vault, *link, "--create-account", "--device-name", f"bench {index}")
            continue  # the account's first upload warms the server: not counted
        cpu = sum(server.cpu())
        start = time.perf_counter()
        cli("init", vault, *link, "--vault", f"v{index}", "--create", "--device-name", f"bench {index}")
        uploads[extension].append((time.perf_counter() - start, sum(server.cpu()) - cpu))
        print(f"  upload {index} as .{extension}: {uploads[extension][-1][0]:.2f} s, {uploads[extension][-1][1]:.2f} CPU-s", flush=True)
    # One more upload of notes, counted, so each kind has two.
    vault = f"{work}/vault-4"
    shutil.copytree(f"{work}/source-md", vault)
    cpu = sum(server.cpu())
    start = time.perf_counter()
    cli("init", vault, "--server", server.url, "--email", email, "--vault", "v4", "--create", "--device-name", "bench 4")
    uploads["md"].append((time.perf_counter() - start, sum(server.cpu()) - cpu))

    api = API(server.url, "default")
    queries = {
        f"a word in about 1 note in 3 ({common})": common,
        f"a word in about 1 in 100 ({medium})": medium,
        "a word in a few (zanzibar7)": "zanzibar7",
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
    floor = [api.timed("/vault/usage")[0] for _ in range(repeats)]
    every = [t for values in times.values() for t in values]

    print(f"machine: {machine(work)}")
    print(f"search on a vault of {notes} notes, {repeats} requests each (median, p95; results shown, at most 20):")
    print(f"  floor, GET /vault/usage:            {statistics.median(floor) * 1000:6.1f} ms, {p95(floor) * 1000:6.1f} ms")
    for label, values in times.items():
        print(f"  {label:<40} {statistics.median(values) * 1000:6.1f} ms, {p95(values) * 1000:6.1f} ms  ({found[label]} shown)")
    print(f"  all queries:                        {statistics.median(every) * 1000:6.1f} ms, {p95(every) * 1000:6.1f} ms")
    md, dat = (statistics.median(w for w, _ in uploads[k]) for k in ("md", "dat"))
    md_cpu, dat_cpu = (statistics.median(c for _, c in uploads[k]) for k in ("md", "dat"))
    print(f"uploads of {notes} files by vaultsync init (median of two each; server + Postgres CPU):")
    print(f"  as .dat, not indexed (the floor):   {dat:6.2f} s, {dat_cpu:6.2f} CPU-s")
    print(f"  as .md, texts kept for search:      {md:6.2f} s, {md_cpu:6.2f} CPU-s  ({md / dat:.2f}× the floor's time, {md_cpu / dat_cpu:.2f}× its CPU)")
finally:
    stop_all(children)
    shutil.rmtree(work, ignore_errors=True)
