#!/usr/bin/env bash
# Installs what the tests need from Debian's packages when it is missing: Chromium for the browser suites
# (Playwright cannot download a browser here, so tests drive /usr/bin/chromium; override with CHROMIUM_PATH),
# redis-server, which the Redis and Upstash storage tests start on a loopback port of their own, and a C++
# toolchain: better-sqlite3 (a dev dependency for the SQLite tests) compiles from source when its prebuilt
# binary cannot be downloaded.
set -euo pipefail
missing=()
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v "${REDIS_SERVER_PATH:-redis-server}" >/dev/null 2>&1 || missing+=(redis-server)
{ command -v make && command -v g++ && command -v python3; } >/dev/null 2>&1 || missing+=(build-essential python3)
if [ ${#missing[@]} -eq 0 ]; then
  echo "system dependencies present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -q
$SUDO apt-get install -y -q -o DPkg::Lock::Timeout=300 "${missing[@]}"
