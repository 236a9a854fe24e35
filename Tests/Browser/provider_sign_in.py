#!/usr/bin/env python3
"""Signs in to the web app with Sign in with Apple's flow in a real headless Chromium: the sign-in
page's button goes to the provider (a local issuer over HTTPS with its own certificate), whose
answer comes back as a cross-site form post; the server's relay page posts it on with this
browser's cookies (the script does it), and the browser lands signed in, as a new account whose
Account page names the provider. Prints a JSON report; exits 1 on any failure.

Usage: provider_sign_in.py BASE_URL PROVIDER_LABEL
"""
import json
import sys
import traceback

from playwright.sync_api import expect, sync_playwright

base, label = sys.argv[1:3]
report = {"failures": [], "visited": [], "console_errors": []}
step = "start"
try:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        # The local issuer's certificate is its own; a real provider's is not.
        context = browser.new_context(ignore_https_errors=True)
        page = context.new_page()
        page.on("console", lambda m: report["console_errors"].append(f"{m.text} ({m.location.get('url')})") if m.type == "error" else None)
        page.on("framenavigated", lambda f: report["visited"].append(f.url.split("?")[0]) if f == page.main_frame else None)
        page.set_default_timeout(15000)

        step = "sign in with the provider"
        page.goto(base + "/app/signin")
        page.get_by_role("link", name=f"Sign in with {label}").click()
        expect(page.get_by_role("heading", name="Your vaults")).to_be_visible()
        if not any(url.endswith("/app/signin/apple/callback") for url in report["visited"]):
            report["failures"].append(f"the provider's form post did not pass through the relay page: {report['visited']}")

        step = "the account page"
        page.get_by_role("link", name="Account").click()
        expect(page.get_by_text(f"{label}, since")).to_be_visible()
        browser.close()
except Exception:
    report["failures"].append(f"{step}: {traceback.format_exc(limit=3)}")

csp = [e for e in report["console_errors"] if "Content Security Policy" in e]
if csp:
    report["failures"].append(f"a page broke its CSP: {csp}")
print(json.dumps(report))
sys.exit(1 if report["failures"] else 0)
