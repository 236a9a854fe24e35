#!/usr/bin/env python3
"""A Syncthing folder with simple file versioning, made the way people get one: two real Syncthing
instances on loopback share a folder; edits and a deletion made on the first reach the second,
which archives what they replace in its .stversions (Syncthing versions only what another device
changes). Prints the second's folder. Every Syncthing process ends with this script, also when
it is killed (PR_SET_PDEATHSIG) or fails.

Usage: versions.py WORK   (an empty folder it may fill)"""
import ctypes, json, os, signal, socket, subprocess, sys, time, urllib.request
import xml.etree.ElementTree as ET

API_KEY = "vaultsync-import-test"
FOLDER = "notes"
# Each version's modification time, kept by Syncthing on the second device and in .stversions.
DAY = 86400
FIRST = 1767261600  # 2026-01-01T10:00:00Z


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Syncthing:
    def __init__(self, home):
        self.home, self.gui, self.listen = home, free_port(), free_port()
        subprocess.run(["syncthing", "generate", f"--home={home}", "--no-default-folder"], check=True, capture_output=True)
        self.id = subprocess.run(["syncthing", "serve", f"--home={home}", "--device-id"], check=True, capture_output=True, text=True).stdout.strip()
        config = ET.parse(f"{home}/config.xml")
        options = config.getroot().find("options")
        for key, value in {"listenAddress": f"tcp://127.0.0.1:{self.listen}", "globalAnnounceEnabled": "false", "localAnnounceEnabled": "false",
                           "relaysEnabled": "false", "natEnabled": "false", "urAccepted": "-1", "autoUpgradeIntervalH": "0",
                           "crashReportingEnabled": "false", "startBrowser": "false"}.items():
            options.find(key).text = value
        config.write(f"{home}/config.xml")
        self.process = subprocess.Popen(["syncthing", "serve", f"--home={home}", "--no-browser", "--no-restart", "--no-upgrade",
                                         f"--gui-address=127.0.0.1:{self.gui}", f"--gui-apikey={API_KEY}"],
                                        stdout=open(f"{home}/log.txt", "w"), stderr=subprocess.STDOUT, preexec_fn=die_with_parent, start_new_session=True)
        for _ in range(600):
            try:
                self.api("GET", "/rest/system/ping")
                return
            except Exception:
                time.sleep(0.1)
        raise SystemExit(f"syncthing did not start: {open(f'{home}/log.txt').read()[-2000:]}")

    def api(self, method, path, body=None):
        request = urllib.request.Request(f"http://127.0.0.1:{self.gui}{path}", method=method, headers={"X-API-Key": API_KEY, "Content-Type": "application/json"},
                                         data=None if body is None else json.dumps(body).encode())
        with urllib.request.urlopen(request, timeout=60) as response:
            data = response.read()
            return json.loads(data) if data else None

    def share(self, path, other, versioning=None):
        self.api("POST", "/rest/config/devices", {"deviceID": other.id, "name": "other", "addresses": [f"tcp://127.0.0.1:{other.listen}"]})
        folder = {"id": FOLDER, "label": FOLDER, "path": path, "type": "sendreceive", "rescanIntervalS": 3600, "fsWatcherEnabled": False,
                  "devices": [{"deviceID": self.id}, {"deviceID": other.id}]}
        if versioning: folder["versioning"] = versioning
        self.api("POST", "/rest/config/folders", folder)

    def stop(self):
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=20)
        except Exception:
            os.killpg(self.process.pid, signal.SIGKILL)


def write(folder, path, text, day):
    full = os.path.join(folder, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
    os.utime(full, (FIRST + day * DAY, FIRST + day * DAY))


def wait_until(what, condition, limit=90):
    start = time.time()
    while time.time() - start < limit:
        if condition(): return
        time.sleep(0.1)
    raise SystemExit(f"timed out waiting until {what}")


def read(path):
    try:
        with open(path) as f: return f.read()
    except OSError:
        return None


def main(work):
    a_dir, b_dir = os.path.join(work, "first"), os.path.join(work, "second")
    os.makedirs(a_dir)
    os.makedirs(b_dir)
    write(a_dir, "plan.md", "plan, first\n", 0)
    write(a_dir, "keep.md", "kept as it is\n", 0)
    write(a_dir, "bye.md", "deleted later\n", 0)
    write(a_dir, "sub/deep.md", "deep, first\n", 0)
    first, second = Syncthing(os.path.join(work, "home-first")), Syncthing(os.path.join(work, "home-second"))
    try:
        first.share(a_dir, second)
        second.share(b_dir, first, {"type": "simple", "params": {"keep": "10"}})
        wait_until("the second device has the folder", lambda: read(os.path.join(b_dir, "sub/deep.md")) == "deep, first\n")
        for day, text in [(1, "plan, second version\n"), (2, "plan, the third and last version\n")]:
            time.sleep(1.1)  # archived versions are named to the second
            write(a_dir, "plan.md", text, day)
            if day == 1: write(a_dir, "sub/deep.md", "deep, second version\n", day)
            first.api("POST", f"/rest/db/scan?folder={FOLDER}")
            wait_until(f"plan.md version {day + 1} arrives", lambda: read(os.path.join(b_dir, "plan.md")) == text)
        time.sleep(1.1)
        os.remove(os.path.join(a_dir, "bye.md"))
        first.api("POST", f"/rest/db/scan?folder={FOLDER}")
        wait_until("bye.md is deleted", lambda: not os.path.exists(os.path.join(b_dir, "bye.md")))
    finally:
        for instance in (first, second): instance.stop()
    print(b_dir)


if __name__ == "__main__":
    main(sys.argv[1])
