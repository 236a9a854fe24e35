#!/usr/bin/env python3
"""A note's page in the web app on a vault of NOTES notes, as a browser asks for it: a release
`vaultsync-server serve` on its embedded default, the vault uploaded by a release `vaultsync init`.
Each note links to three others by wiki link; `hub.md` is linked from every 100th note and has
headings (an outline) and wiki links of its own. Times, over REPEATS requests each (one connection,
signed in, the page read whole):

  - the floor: the vault list (`/app/`), a page that reads nothing of the vault;
  - a note nobody links to, and `hub.md` (its backlinks found among all NOTES notes);
  - the first page after the upload (the links of every note read once), and the first after
    30 notes are edited (only their new contents read).

Usage: bench/note-page.sh [NOTES] [REPEATS]   (defaults 10000 200)"""
import http.client, os, random, re, statistics, subprocess, sys, tempfile, time, urllib.parse
from benchlib import Server, machine, stop_all

notes, repeats = (int(a) for a in (sys.argv[1:] + ["10000", "200"][len(sys.argv) - 1:])[:2])
build = os.environ.get("BUILD", ".build/release")
work = tempfile.mkdtemp(prefix="vaultsync-page-")
os.chmod(work, 0o755)
env = dict(os.environ, VAULTSYNC_PASSWORD="bench password for pages")
children = []
rng = random.Random(57)


def path(i): return f"notes/{i // 500}/note-{i}.md"


def write_note(root, i, extra=""):
    links = " ".join(f"[[note-{rng.randrange(notes)}]]" for _ in range(3))
    hub = " and the [[hub]]" if i % 100 == 0 else ""
    os.makedirs(os.path.dirname(f"{root}/{path(i)}"), exist_ok=True)
    with open(f"{root}/{path(i)}", "w") as f:
        f.write(f"---\ntitle: Note {i}\ntags: [bench]\n---\n# Note {i}\n\nSee {links}{hub}.{extra}\n\n" + "Lorem ipsum dolor sit amet. " * 30 + "\n")


def run(*args):
    out = subprocess.run([f"{build}/vaultsync", *args], env=env, capture_output=True, text=True)
    if out.returncode != 0: sys.exit(f"{' '.join(args)} failed: {out.stdout}{out.stderr}")


class Browser:
    """One keep-alive connection with the session's cookies."""

    def __init__(self, url):
        self.conn = http.client.HTTPConnection(urllib.parse.urlparse(url).netloc)
        self.cookies = {}

    def request(self, method, target, body=None):
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if body is not None: headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.conn.request(method, target, body=body, headers=headers)
        response = self.conn.getresponse()
        text = response.read().decode()
        for value in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            self.cookies[name] = rest.split(";")[0]
        return response.status, text

    def timed(self, target):
        start = time.perf_counter()
        status, text = self.request("GET", target)
        if status != 200: sys.exit(f"{target}: {status} {text[:500]}")
        return time.perf_counter() - start, text


def summary(values):
    values = sorted(values)
    return statistics.median(values), values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]


try:
    server = Server(f"{build}/vaultsync-server", work, children)
    vault = f"{work}/vault"
    for i in range(notes): write_note(vault, i)
    with open(f"{vault}/hub.md", "w") as f:
        f.write("# Hub\n\n## Links\n\nTo [[note-1]] and [[note-2]].\n\n## More\n\nText.\n\n### Detail\n\nMore text.\n")
    run("init", vault, "--server", server.url, "--email", "page@example.com", "--create-account", "--device-name", "bench")

    web = Browser(server.url)
    status, form = web.request("GET", "/app/signin")
    token = re.search(r'name="form_token" value="([^"]+)"', form).group(1)
    web.request("POST", "/app/signin", urllib.parse.urlencode({"email": "page@example.com", "password": env["VAULTSYNC_PASSWORD"], "form_token": token}))
    _, vaults = web.timed("/app/")
    base = re.search(r'href="(/app/vaults/[0-9a-f-]+/)files"', vaults).group(1)
    hub = base + "file?path=hub.md"
    lonely = base + "file?path=" + urllib.parse.quote(path(notes - 1))

    first, page = web.timed(hub)
    linked = page.split('id="backlinks-heading"', 1)[-1].split("</section>", 1)[0].count("<li><a href=")
    expected = len(range(0, notes, 100))
    if linked < expected: sys.exit(f"hub.md lists {linked} backlinks, not {expected}")
    floor = summary([web.timed("/app/")[0] for _ in range(repeats)])
    alone = summary([web.timed(lonely)[0] for _ in range(repeats)])
    hubbed = summary([web.timed(hub)[0] for _ in range(repeats)])
    for i in rng.sample(range(notes), 30): write_note(vault, i, " Edited.")
    run("sync", vault)
    after_edit, _ = web.timed(hub)

    print(f"machine: {machine(work)}")
    print(f"note page on a vault of {notes} notes, {repeats} requests each (median, p95):")
    print(f"  floor, the vault list:          {floor[0] * 1000:6.1f} ms, {floor[1] * 1000:6.1f} ms")
    print(f"  a note nobody links to:         {alone[0] * 1000:6.1f} ms, {alone[1] * 1000:6.1f} ms ({alone[0] / floor[0]:.1f}× the floor)")
    print(f"  hub.md, {linked} backlinks:       {hubbed[0] * 1000:6.1f} ms, {hubbed[1] * 1000:6.1f} ms ({hubbed[0] / floor[0]:.1f}× the floor)")
    print(f"  the first page after the upload (every note's links read): {first * 1000:.0f} ms")
    print(f"  the first page after 30 notes were edited:                 {after_edit * 1000:.1f} ms")
finally:
    stop_all(children)
