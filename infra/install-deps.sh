#!/usr/bin/env bash
# Installs the system packages VaultSync builds and runs with (Debian/Ubuntu). Idempotent:
# does nothing when everything is present. The Swift 6 toolchain itself must already be on PATH.
set -euo pipefail
packages=(libsqlite3-dev libpq-dev libssl-dev libcurl4-openssl-dev postgresql)
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
