#!/usr/bin/env bash
# Runs Autobahn|Testsuite's fuzzing client (sections 1-7 and 9) against the server's echo
# endpoint, which exists only with --conformance-echo, so the same WebSockets wrapper (its
# reassembly, UTF-8 checks and limits) is what gets tested. Fails on any FAILED case except the
# accepted ones listed in docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SCROLLCAST_BIN:-.build/debug/scrollcast}
OUT=${AUTOBAHN_REPORT:-reports/autobahn}
# RFC 6455 §5.5.3 lets an endpoint answer only the most recent of several pings; libwebsockets does.
ACCEPTED=(2.10 2.11)

scripts/install-autobahn.sh >/dev/null
rm -rf "$OUT" && mkdir -p "$OUT"
LOG=$(mktemp)
"$BIN" --port 0 --conformance-echo --log-level warning >"$LOG" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; rm -f "$LOG"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$LOG" && break; sleep 0.1; done
PORT=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$LOG" | head -1)
[ -n "$PORT" ] || { echo "conformance: server did not start:"; cat "$LOG"; exit 1; }

cat >"$OUT/spec.json" <<JSON
{ "outdir": "$OUT", "servers": [ { "agent": "scrollcast", "url": "ws://127.0.0.1:$PORT/echo" } ],
  "cases": ["1.*", "2.*", "3.*", "4.*", "5.*", "6.*", "7.*", "9.*"], "exclude-cases": [], "exclude-agent-cases": {} }
JSON
timeout 600 .venv-ab/bin/wstest -m fuzzingclient -s "$OUT/spec.json" >"$OUT/wstest.log" 2>&1
kill -0 $PID 2>/dev/null || { echo "conformance: the server died during the run"; cat "$LOG"; exit 1; }
python3 scripts/autobahn_verdict.py "$OUT/index.json" "${ACCEPTED[@]}"
