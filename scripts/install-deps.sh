#!/usr/bin/env bash
# Installs what Scrollcast needs on a fresh Debian machine: the C libraries (libwebsockets, and
# SQLite for GRDB, hiredis), Redis for the cluster tests and demo, a browser for the page tests,
# the C library, compiler builtins and wasm-opt for the engine's WebAssembly build and wasm-objdump
# for finding what its bytes are (docs/wasm.md),
# Node with Debian's `ws` (the peer broadcaster `make bench` compares with), and a Python
# virtualenv for the test clients.
# Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(libwebsockets-dev libssl-dev zlib1g-dev libsqlite3-dev libhiredis-dev redis-server pkg-config chromium fonts-liberation fonts-dejavu-core
              wasi-libc binaryen libclang-rt-14-dev-wasm32 wabt nodejs node-ws)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  # Another apt run can remove downloaded .debs mid-install: try twice.
  for attempt in 1 2; do
    if DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null; then break; fi
    [ "$attempt" -eq 2 ] && { echo "install-deps: apt-get install failed" >&2; exit 1; }
  done
fi

VENV=.venv
if [ ! -x "$VENV/bin/python" ]; then
  echo "install-deps: creating $VENV"
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c 'import websockets, playwright, pytest, pytest_playwright' 2>/dev/null; then
  echo "install-deps: installing Python test packages"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r Tests/e2e/requirements.txt
fi
