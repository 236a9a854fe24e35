#!/usr/bin/env python3
"""Drives the web app in a real headless Chromium, as a person would: signs in, browses, opens a
hostile note (and sees which note links to it), searches the vault (results with their matches
marked, the keyboard's arrows through them, a note opened at its match, a hostile note's words
shown as text), compares two versions (switching views in place), restores one, brings deleted files
back, looks at the vault as it was at a moment, settles a conflict by editing the merged text, shares the vault (invites an account as a
reader, makes a writer's code and revokes it), reads an encrypted vault's members page (safety
numbers, invitations sent from a device), renames and revokes a device, reads the storage and account
pages, makes an enrolment code (printed for the test to sync a device with), watches the activity
list take a change made in another tab, exports the vault, sets a quota, makes an invitation and
reads the server page as an operator, and signs out; checks every
page with axe (no serious or critical violation), with the keyboard (the skip link comes first),
and at a phone's width and a wide one (no sideways scrolling, no word cut in two; tables stacked
as cards at 390 px). Prints a JSON report; exits 1 on any failure.

Usage: MEMBER_EMAIL=… SEALED_VAULT=… SAFETY_NUMBER=… web_app.py BASE_URL EMAIL PASSWORD [SCREENSHOT_DIR]
MEMBER_EMAIL is another account of the server, which the script invites to the vault; SEALED_VAULT
the id of the account's end-to-end encrypted vault, whose members page must show the account's
SAFETY_NUMBER and no invitation form.
The server must hold what BrowserTests seeds (see Tests/ContractTests/BrowserTests.swift).
"""
import json
import os
import sys
import traceback

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect, sync_playwright

base, email, password = sys.argv[1:4]
member = os.environ["MEMBER_EMAIL"]
shots = sys.argv[4] if len(sys.argv) > 4 else None
report = {"pages": [], "violations": [], "failures": [], "dialogs": [], "console_errors": []}
axe = Axe()


# Words (runs of letters and digits) broken across two lines inside the word itself (a column too
# narrow, `overflow-wrap: anywhere`): none, unless the word is wider than its whole block (a long
# hash must break, or the page scrolls sideways).
CUT_WORDS = """() => {
  const cut = [], range = document.createRange();
  const block = el => { while (el && getComputedStyle(el).display.startsWith('inline')) el = el.parentElement; return el; };
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const holder = block(node.parentElement);
    if (!holder || !holder.getClientRects().length) continue;
    const style = getComputedStyle(holder), room = holder.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const lines = (start, end) => {
      range.setStart(node, start); range.setEnd(node, end);
      const rects = [...range.getClientRects()].filter(r => r.width > 0);
      return {count: new Set(rects.map(r => Math.round(r.top))).size, width: rects.reduce((sum, r) => sum + r.width, 0)};
    };
    for (const token of node.data.matchAll(/\\S+/g)) {
      const whole = lines(token.index, token.index + token[0].length);
      if (whole.count < 2 || whole.width > room + 1) continue;
      for (const m of token[0].matchAll(/[\\p{L}\\p{N}]+/gu)) {
        if (lines(token.index + m.index, token.index + m.index + m[0].length).count > 1) cut.push(m[0]);
      }
    }
  }
  return cut.slice(0, 5);
}"""


# The pages whose phone-width screenshots docs/web.md shows (every page is checked at both widths).
PHONE_SHOTS = {"vaults", "folder", "note", "history", "diff", "diff-side", "conflict", "devices", "members", "activity", "storage", "admin-users"}


def phone_and_wide(page, name):
    """The page at a phone's width (390 px) and at 1280 px: no sideways scrolling, no word cut in
    two; a screenshot at 390 px."""
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 844 if width == 390 else 800})
        if page.evaluate("document.scrollingElement.scrollWidth > window.innerWidth + 1"):
            report["failures"].append(f"{name} scrolls sideways at {width} px")
        cut = page.evaluate(CUT_WORDS)
        if cut:
            report["failures"].append(f"{name}: words cut in two at {width} px: {cut}")
        if shots and width == 390 and name in PHONE_SHOTS:
            page.screenshot(path=os.path.join(shots, name + "-phone.png"), full_page=True)


def check(page, name, loaded=True):
    """axe's serious and critical violations, a screenshot, the page at a phone's width and a wide
    one, and (on a page just loaded, not one the script changed in place) the skip link first in
    tab order."""
    report["pages"].append(name)
    results = axe.run(page)
    for violation in results.response["violations"]:
        if violation["impact"] in ("serious", "critical"):
            report["violations"].append({"page": name, "id": violation["id"], "help": violation["help"],
                                         "nodes": [n["html"][:200] for n in violation["nodes"][:3]]})
    if shots:
        page.screenshot(path=os.path.join(shots, name + ".png"), full_page=True)
    phone_and_wide(page, name)
    if not loaded:
        return
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement && document.activeElement.textContent.trim()")
    if focused != "Skip to the content":
        report["failures"].append(f"{name}: the first Tab focuses {focused!r}, not the skip link")
    page.evaluate("document.activeElement && document.activeElement.blur()")


step = "start"
try:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.on("dialog", lambda d: (report["dialogs"].append(d.message), d.dismiss()))
        page.on("console", lambda m: report["console_errors"].append(f"{m.text} ({m.location.get('url')})") if m.type == "error" else None)
        page.set_default_timeout(15000)

        step = "sign in"
        page.goto(base + "/app/")
        expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
        check(page, "signin")
        page.get_by_label("Email").fill(email)
        page.get_by_label("Password").fill("not the password")
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("alert")).to_contain_text("do not match")
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("heading", name="Your vaults")).to_be_visible()
        check(page, "vaults")

        step = "browse"
        page.get_by_role("link", name="default", exact=True).click()
        check(page, "folder")
        page.get_by_role("link", name="notes", exact=True).click()
        page.get_by_role("link", name="plan.md", exact=True).click()
        expect(page.get_by_role("heading", name="Properties")).to_be_visible()
        check(page, "note")
        # A time reads as people read it ("a minute ago"), the exact one on hover and for screen readers.
        changed = page.locator("p.meta time").first
        shown, title, label = changed.text_content(), changed.get_attribute("title") or "", changed.get_attribute("aria-label") or ""
        if "T" in shown or not shown.strip() or not title or title not in label or shown not in label:
            report["failures"].append(f"the note's time reads {shown!r} (title {title!r}, label {label!r})")
        note_url = page.url
        # The notes that link here, under the note, each a link to it.
        backlinks = page.get_by_role("region", name="Linked from")
        expect(backlinks.get_by_role("link", name="notes/Reading list.md")).to_be_visible()
        page.goto(note_url.replace("file?path=notes/plan.md", "file?path=pics/cat.png"))
        expect(page.get_by_role("img", name="cat.png, version 1")).to_be_visible()
        if page.evaluate("document.querySelector('img.shown').naturalWidth") < 1:
            report["failures"].append("the image of pics/cat.png did not load")
        # A PDF in place, in the browser's own viewer (the page's policy lets this site's objects load).
        page.goto(note_url.replace("file?path=notes/plan.md", "file?path=docs/paper.pdf"))
        expect(page.locator("object.shown-pdf")).to_have_attribute("type", "application/pdf")
        page.goto(note_url)

        step = "search"
        page.get_by_role("link", name="default", exact=True).click()
        box = page.get_by_role("searchbox", name="Search the notes")
        box.fill("QUARTER")
        box.press("Enter")
        expect(page.get_by_role("heading", name="Search default")).to_be_visible()
        expect(page.get_by_role("status")).to_contain_text("1 note matches QUARTER")
        expect(page.locator("ol.results mark").first).to_have_text("quarter")
        check(page, "search")
        # The keyboard: down from the box to the first note found, Enter opens it at its match.
        page.get_by_role("searchbox", name="Search the notes").focus()
        page.keyboard.press("ArrowDown")
        expect(page.get_by_role("link", name="notes/plan.md")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator("mark#match")).to_have_text("quarter")
        expect(page.locator("mark#match")).to_be_in_viewport()
        if not page.url.endswith("#match"):
            report["failures"].append(f"a note found did not open at its match: {page.url}")
        # A hostile note's words are shown as text in a snippet, never run.
        page.get_by_role("searchbox", name="Search the notes").fill("onerror alert")
        page.get_by_role("searchbox", name="Search the notes").press("Enter")
        snippet = page.locator("ol.results .snippet").first.text_content() or ""
        if "onerror=alert(1)" not in snippet or page.locator("ol.results img").count() != 0:
            report["failures"].append(f"a hostile note's snippet reads {snippet!r}")
        page.goto(note_url)

        step = "history and changes"
        page.get_by_role("link", name="History").click()
        check(page, "history")
        history_url = page.url
        page.get_by_role("link", name="Compare version 2 with the one before").click()
        expect(page.get_by_role("heading", name="Text")).to_be_visible()
        check(page, "diff")
        # The switch is in place (the script swaps the page's main part): the address follows and
        # the keyboard's focus is on the switch back.
        page.get_by_role("link", name="Show side by side").click()
        expect(page.get_by_role("link", name="Show inline")).to_be_focused()
        if "view=side" not in page.url:
            report["failures"].append(f"the side-by-side switch did not keep the address: {page.url}")
        check(page, "diff-side", loaded=False)
        page.goto(history_url)
        page.get_by_role("button", name="Restore version 1").click()
        expect(page.get_by_role("status")).to_contain_text("now version 3")

        step = "deleted files"
        page.get_by_role("link", name="default", exact=True).click()
        page.get_by_role("link", name="Deleted files").click()
        check(page, "deleted")
        # A folder's deletions first, from its own view of the deleted files.
        page.goto(page.url.split("?")[0] + "?folder=old/")
        page.get_by_label("Restore everything deleted under old/").select_option("hour")
        page.get_by_role("button", name="Restore them").click()
        expect(page.get_by_role("status")).to_contain_text("2 files restored")
        page.get_by_role("link", name="default", exact=True).click()
        page.get_by_role("link", name="Deleted files").click()
        page.get_by_label("Restore everything deleted").select_option("hour")
        page.get_by_role("button", name="Restore them").click()
        expect(page.get_by_role("status")).to_contain_text("1 file restored")

        step = "vault as it was"
        page.get_by_role("link", name="default", exact=True).click()
        # An hour from now in the browser's own zone: the vault as it is (the server's clock may lag).
        later = page.evaluate("(d => new Date(d - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19))(new Date(Date.now() + 3600000))")
        page.get_by_label("See the vault as it was on").fill(later)
        page.get_by_role("button", name="Show it").click()
        expect(page.get_by_role("status")).to_contain_text("read-only")
        if "as_of=" not in page.url or "Z" not in page.url:
            report["failures"].append(f"the moment did not travel as UTC: {page.url}")
        expect(page.get_by_role("button", name="Restore the whole vault as it was")).to_be_visible()
        check(page, "as-of")
        page.get_by_role("link", name="Back to now").click()
        expect(page.get_by_role("link", name="Deleted files")).to_be_visible()
        page.get_by_role("link", name="Deleted files").click()

        step = "conflict"
        page.get_by_role("link", name="default", exact=True).click()
        page.get_by_role("link", name="Conflicts").click()
        check(page, "conflicts")
        page.get_by_role("link", name="notes/plan.md").click()
        check(page, "conflict")
        page.get_by_label("Or write the merged text").fill("merged in the browser\n")
        page.get_by_role("button", name="Save the merged text").click()
        expect(page.get_by_role("status")).to_contain_text("settled")

        step = "members"
        page.get_by_role("link", name="default", exact=True).click()
        page.get_by_role("link", name="Members").click()
        expect(page.get_by_role("heading", name="Members of default")).to_be_visible()
        members_path = page.url[len(base):]
        page.get_by_label("Email of the account to invite").fill(member)
        page.get_by_label("as", exact=True).select_option("reader")
        page.get_by_role("button", name="Invite", exact=True).click()
        expect(page.get_by_role("status")).to_contain_text("Invited")
        page.get_by_label("Or make a code for someone, as").select_option("writer")
        page.get_by_role("button", name="Make a code").click()
        expect(page.get_by_role("heading", name="Invitation code")).to_be_visible()
        check(page, "members")
        page.get_by_role("button", name="Revoke the invitation of a code").click()
        expect(page.get_by_role("status")).to_contain_text("revoked")
        expect(page.get_by_role("listitem").filter(has_text=member)).to_contain_text("as reader")

        step = "an encrypted vault's members"
        sealed_path = "/app/vaults/" + os.environ["SEALED_VAULT"] + "/members"
        page.goto(base + sealed_path)
        expect(page.get_by_role("heading", name="Members of sealed")).to_be_visible()
        expect(page.get_by_text(os.environ["SAFETY_NUMBER"]).first).to_be_visible()
        expect(page.get_by_text("--safety-number").first).to_be_visible()
        if page.get_by_label("Email of the account to invite").count() > 0:
            report["failures"].append("an encrypted vault's members page offers to invite in the browser")
        check(page, "members-encrypted")

        step = "devices and storage"
        page.get_by_role("link", name="Devices").click()
        check(page, "devices")
        page.get_by_label("New name for phone").fill("Ana's phone")
        page.get_by_role("row", name="phone").get_by_role("button", name="Rename").click()
        expect(page.get_by_role("status")).to_contain_text("renamed")
        page.get_by_role("button", name="Revoke Ana's phone").click()
        expect(page.get_by_role("status")).to_contain_text("revoked")
        page.get_by_role("link", name="Storage").click()
        check(page, "storage")
        page.get_by_role("link", name="Account").click()
        check(page, "account")
        page.get_by_role("link", name="Add a device").click()
        page.get_by_role("button", name="Make a code").click()
        expect(page.get_by_role("heading", name="Your code")).to_be_visible()
        report["enroll_code"] = page.locator("#code-heading + p strong").inner_text()
        check(page, "enroll")

        step = "export"
        page.get_by_role("link", name="Vaults", exact=True).click()
        page.get_by_role("link", name="default", exact=True).click()
        page.get_by_role("link", name="Activity").click()
        expect(page.get_by_role("status")).to_contain_text("updates itself")
        # Another tab restores a file: the open activity list shows it without a reload.
        other = context.new_page()
        other.goto(page.url.replace("/activity", "/history?path=gone.md"))
        other.get_by_role("button", name="Restore version 1").click()
        expect(other.get_by_role("status")).to_contain_text("now version 4")
        other.close()
        expect(page.get_by_role("status")).to_contain_text("New changes are listed", timeout=20000)
        expect(page.get_by_role("row").filter(has_text="gone.md").first).to_contain_text("changed (version 4)")
        check(page, "activity")
        page.go_back()
        page.get_by_role("link", name="Export").click()
        page.get_by_role("button", name="Export the vault now").click()
        expect(page.get_by_role("link", name="Download the zip")).to_be_visible()
        check(page, "export")
        with page.expect_download() as download:
            page.get_by_role("link", name="Download the zip").click()
        if not download.value.suggested_filename.endswith(".zip"):
            report["failures"].append(f"the export downloads as {download.value.suggested_filename!r}, not a .zip")
        with open(download.value.path(), "rb") as archive:
            if archive.read(2) != b"PK":
                report["failures"].append("the export downloaded is not a zip")

        step = "operator"
        page.get_by_role("link", name="Operator").click()
        expect(page.get_by_role("heading", name="Users")).to_be_visible()
        check(page, "admin-users")
        page.get_by_role("link", name=email).click()
        check(page, "admin-user")
        page.get_by_label("Storage quota").fill("10 GB")
        page.get_by_role("button", name="Save the limits").click()
        expect(page.get_by_role("status")).to_contain_text("limits were saved")
        page.get_by_role("link", name="Invitations").click()
        page.get_by_label("Who it is for").fill("Ana")
        page.get_by_role("button", name="Make an invitation code").click()
        expect(page.get_by_role("heading", name="The new code")).to_be_visible()
        check(page, "admin-invitations")
        page.get_by_role("link", name="Server", exact=True).click()
        expect(page.get_by_text("Ready: serving requests.")).to_be_visible()
        check(page, "admin-server")

        step = "a phone's width"
        page.set_viewport_size({"width": 390, "height": 844})
        for path in [note_url + "&version=2", "/app/", "/app/devices", "/app/storage", members_path, sealed_path]:
            page.goto(path if path.startswith("http") else base + path)
            wide = page.evaluate("document.scrollingElement.scrollWidth > window.innerWidth + 1")
            if wide:
                report["failures"].append(f"{path} scrolls sideways at 390 px")
            # A page's table is a card a row, each value beside its column's name.
            stacked = page.evaluate("""() => [...document.querySelectorAll('main table:not(.diff)')].filter(t => !t.closest('.note') && t.tHead).map(t => {
                const row = t.tBodies[0] && t.tBodies[0].rows[0], cell = row && row.cells[0];
                return {display: row ? getComputedStyle(row).display : 'block', label: cell ? cell.dataset.label : 'x', head: t.tHead.rows[0].cells[0].textContent.trim()};
            })""")
            for table in stacked:
                if table["display"] != "block" or table["label"] != table["head"]:
                    report["failures"].append(f"{path}: a table is not stacked as cards at 390 px: {table}")
            if path == "/app/devices" and not stacked:
                report["failures"].append("/app/devices: no table to stack")

        # The account's links fold behind one button at this width, and open from the keyboard.
        account = page.get_by_role("navigation", name="Account")
        menu = page.get_by_role("button", name="Menu")
        expect(account.get_by_role("link", name="Storage")).to_be_hidden()
        menu.focus()
        page.keyboard.press("Enter")
        expect(menu).to_have_attribute("aria-expanded", "true")
        account.get_by_role("link", name="Storage").click()
        expect(page.get_by_role("heading", name="Storage", exact=True)).to_be_visible()

        step = "sign out"
        page.set_viewport_size({"width": 1280, "height": 800})
        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
        page.goto(base + "/app/devices")
        expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
        browser.close()
except Exception:
    report["failures"].append(f"{step}: {traceback.format_exc(limit=3)}")

if report["dialogs"]:
    report["failures"].append(f"a note ran script: dialogs {report['dialogs']}")
csp = [e for e in report["console_errors"] if "Content Security Policy" in e]
if csp:
    report["failures"].append(f"the page broke its own CSP: {csp}")
print(json.dumps(report))
sys.exit(1 if report["failures"] or report["violations"] else 0)
