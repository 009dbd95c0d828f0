#!/usr/bin/env bash
# Installs what Scrollcast needs on a fresh Debian machine, for one use:
#   demo          what `make demo` runs: the C libraries the server links (libwebsockets, libssl,
#                 SQLite for GRDB, hiredis), the C library, compiler builtins and wasm-opt for the
#                 engine's WebAssembly build (docs/wasm.md), Python for the page's bundle
#                 (scripts/bundle-page.py), and gzip's and brotli's CLIs for the page's
#                 compressed copies (scripts/precompress.sh).
#   cluster-demo  the demo's, and Redis.
#   test          (the default) everything: the demo's, Redis for the cluster tests, a browser and
#                 fonts for the page tests, wasm-objdump for finding what the module's bytes are,
#                 Node with Debian's `ws` (the peer broadcaster `make bench` compares with), and a
#                 Python virtualenv for the test clients.
# Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

USE=${1:-test}
DEMO_PACKAGES=(libwebsockets-dev libssl-dev zlib1g-dev libsqlite3-dev libhiredis-dev pkg-config
               wasi-libc binaryen libclang-rt-14-dev-wasm32 gzip brotli python3)
case "$USE" in
  demo) APT_PACKAGES=("${DEMO_PACKAGES[@]}") ;;
  cluster-demo) APT_PACKAGES=("${DEMO_PACKAGES[@]}" redis-server) ;;
  test) APT_PACKAGES=("${DEMO_PACKAGES[@]}" redis-server chromium fonts-liberation fonts-dejavu-core wabt nodejs node-ws) ;;
  *) echo "install-deps: unknown use '$USE' (demo, cluster-demo or test)" >&2; exit 2 ;;
esac

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps ($USE): installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  # The demo needs none of the documentation and tools its packages recommend (the tests keep
  # them: the browser's are its sandbox and fonts).
  RECOMMENDS=(); [ "$USE" = test ] || RECOMMENDS=(--no-install-recommends)
  # Another apt run can remove downloaded .debs mid-install: try twice.
  for attempt in 1 2; do
    if DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${RECOMMENDS[@]}" -o DPkg::Lock::Timeout=600 \
         "${missing[@]}" >/dev/null; then break; fi
    [ "$attempt" -eq 2 ] && { echo "install-deps: apt-get install failed" >&2; exit 1; }
  done
fi

[ "$USE" = test ] || exit 0
VENV=.venv
if [ ! -x "$VENV/bin/python" ]; then
  echo "install-deps: creating $VENV"
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c 'import websockets, playwright, pytest, pytest_playwright, xdist' 2>/dev/null; then
  echo "install-deps: installing Python test packages"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r Tests/e2e/requirements.txt
fi
