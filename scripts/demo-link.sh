#!/usr/bin/env bash
# `make demo LINK=4g`: the demo server, and scrollcast-link in front of it emulating a real network
# (docs/links.md), so the printed URL shows what a viewer on that link sees. The direct URL is
# printed too, to compare side by side. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

PROFILE=$1
HOST=${2:-127.0.0.1}
PORT=${3:-8080}
LINK_PORT=${4:-$((PORT + 1))}
BIN=${DEMO_BIN:-.build/debug}
LOGS=data/demo-logs
START_SECONDS=30

fail() { echo "demo: $*" >&2; exit 1; }
[ -x "$BIN/scrollcast" ] && [ -x "$BIN/scrollcast-link" ] || fail "no $BIN/scrollcast or scrollcast-link (make demo LINK=PROFILE builds both)"
mkdir -p "$LOGS"

NAME=demo
STOPPED="stopped (rooms are kept in data/; logs in $LOGS)"
source scripts/processes.sh

# The page through the link comes from LINK_PORT: the server must accept WebSockets from that origin too.
ORIGINS="http://$HOST:$PORT,http://$HOST:$LINK_PORT"
if [[ $HOST == 127.0.0.1 || $HOST == localhost || $HOST == 0.0.0.0 ]]; then
  for port in "$PORT" "$LINK_PORT"; do ORIGINS+=",http://127.0.0.1:$port,http://localhost:$port"; done
fi
"$BIN/scrollcast" --host "$HOST" --port "$PORT" --public Public --data data/scrollcast.sqlite \
  --allowed-origins "$ORIGINS" >"$LOGS/server.log" 2>&1 &
PIDS+=($!)
wait_until scrollcast "$!" "$LOGS/server.log" grep -q "^scrollcast listening on" "$LOGS/server.log"

# A bad profile name ends here with scrollcast-link's own message and the list of profiles.
"$BIN/scrollcast-link" --upstream "$HOST:$PORT" --listen "$HOST:$LINK_PORT" --profile "$PROFILE" >"$LOGS/link.log" 2>&1 &
PIDS+=($!)
wait_until scrollcast-link "$!" "$LOGS/link.log" grep -q "^scrollcast-link listening on" "$LOGS/link.log"

echo "Scrollcast through an emulated '$PROFILE' link: open http://$HOST:$LINK_PORT/?room=demo"
echo "  $(grep -m1 "^scrollcast-link: " "$LOGS/link.log" | sed "s/^scrollcast-link: //")"
echo "  direct, for comparison: http://$HOST:$PORT/?room=demo   (Ctrl-C stops both; link stats: curl $(grep "^scrollcast-link listening" "$LOGS/link.log" | sed -E 's/.* control ([^ ]+) .*/http:\/\/\1\/stats/'))"
wait -n "${PIDS[@]}"
