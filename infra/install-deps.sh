#!/usr/bin/env bash
# Installs the system packages VaultSync builds and runs with (Debian/Ubuntu). Idempotent:
# does nothing when everything is present. The Swift 6 toolchain itself must already be on PATH.
# With --tests (infra/test.sh), also what the tests run against: systemd, haproxy, chromium, litmus, rclone, curl
# and syncthing with apt, and from PyPI moto's S3 server (the S3 blob store's tests), schemathesis (the OpenAPI
# fuzz test), Playwright with axe (the web app's browser tests), and webdav4 (a WebDAV client the
# WebDAV tests drive: fsspec's, which sends no Depth and finds answers by the URL it asked for), and
# mcp (the Model Context Protocol's official client, which the agents' tests point at /mcp).
# With --bench (bench/*.sh), also rsync (the floors), syncthing (bench/peers.sh runs it beside VaultSync)
# and heaptrack (bench/client-memory.sh).
set -euo pipefail
tests=false
bench=false
[ "${1:-}" = "--tests" ] && tests=true
[ "${1:-}" = "--bench" ] && bench=true
packages=(libsqlite3-dev libpq-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libssl-dev libcurl4-openssl-dev libxml2 postgresql)
$bench && packages+=(rsync syncthing heaptrack)
# systemd: the tests check the user unit in infra/systemd with systemd-analyze verify.
# haproxy: the multi-instance test runs three servers behind it.
# chromium: the web app's browser tests drive it through Playwright (below).
# litmus and rclone: the WebDAV tests run these clients against /dav/; curl too (Expect: 100-continue).
# syncthing: the import test has two real instances make a folder's .stversions.
$tests && packages+=(systemd haproxy chromium litmus rclone curl syncthing)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
command -v swift >/dev/null || { echo "error: the Swift 6 toolchain (swift) is not on PATH; install it from swift.org first" >&2; exit 1; }
$tests || exit 0
# moto's S3 server: the S3 blob store's tests run against it (pip, PyPI's moto[server]).
if ! command -v moto_server >/dev/null 2>&1; then
  echo "installing: moto[server] (pip)"
  python3 -m pip install --quiet "moto[server]>=5"
  command -v pyenv >/dev/null 2>&1 && pyenv rehash
fi
command -v moto_server >/dev/null || { echo "error: moto_server is not on PATH after installing moto[server]" >&2; exit 1; }
# The encryption formats' reference implementation (docs/encryption-reference.py) needs the
# `cryptography` package (moto brings it; installed on its own when it did not).
python3 -c "import cryptography" 2>/dev/null || { echo "installing: cryptography (pip)"; python3 -m pip install --quiet "cryptography>=42"; }
# schemathesis: the OpenAPI fuzz test drives a live server with docs/openapi.yaml. Pinned: a fixed
# seed finds the same cases only with the same generator.
schemathesis_version=4.32.5
if [ "$(schemathesis --version 2>/dev/null)" != "schemathesis, version $schemathesis_version" ]; then
  echo "installing: schemathesis==$schemathesis_version (pip)"
  python3 -m pip install --quiet "schemathesis==$schemathesis_version"
  command -v pyenv >/dev/null 2>&1 && pyenv rehash
fi
command -v schemathesis >/dev/null || { echo "error: schemathesis is not on PATH after installing it" >&2; exit 1; }
# Playwright for Python drives Debian's chromium (never 'playwright install': it cannot download
# browsers here), and axe-playwright-python brings axe-core for the accessibility checks.
if ! python3 -c "import playwright, axe_playwright_python" 2>/dev/null; then
  echo "installing: playwright axe-playwright-python (pip)"
  python3 -m pip install --quiet "playwright==1.65.2" "axe-playwright-python==0.1.8"
fi
python3 -c "import playwright, axe_playwright_python" || { echo "error: playwright or axe-playwright-python did not install" >&2; exit 1; }
# webdav4: a real WebDAV client of PyPI's, driven by the WebDAV tests.
if ! python3 -c "import webdav4" 2>/dev/null; then
  echo "installing: webdav4 (pip)"
  python3 -m pip install --quiet "webdav4==0.11.0"
fi
python3 -c "import webdav4" || { echo "error: webdav4 did not install" >&2; exit 1; }
# mcp: the Model Context Protocol's official Python client (PyPI), driven by the agents' tests
# against the server's /mcp endpoint (Tests/MCP/agent.py).
if ! python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '2.3.0')" 2>/dev/null; then
  echo "installing: mcp (pip)"
  python3 -m pip install --quiet "mcp==2.3.0"
fi
python3 -c "import mcp.client.streamable_http" || { echo "error: mcp did not install" >&2; exit 1; }
