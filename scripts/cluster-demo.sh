#!/usr/bin/env bash
# `make cluster-demo`: a three-node cluster on this machine (issue 15). Its own redis-server (not
# the system's on 6379) keeps the shared rooms in data/cluster-redis/ with an append-only file;
# three nodes (the demo build) join it, and each page lists all three in ?nodes=, so killing a node shows
# its viewers moving to another. Ctrl-C stops all four processes.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${SCROLLCAST_BIN:-.build/debug/scrollcast}
HOST=127.0.0.1
REDIS_PORT=${REDIS_PORT:-6390}
NODE_PORTS=(8080 8081 8082)
REDIS_DIR=data/cluster-redis
LOGS=data/cluster-logs
START_SECONDS=30

fail() { echo "cluster-demo: $*" >&2; exit 1; }

[ -x "$BIN" ] || fail "no $BIN (make cluster-demo builds it; or run make demo-build)"
command -v redis-server >/dev/null || fail "no redis-server (scripts/install-deps.sh installs it)"
mkdir -p "$REDIS_DIR" "$LOGS"

NAME=cluster-demo
STOPPED="stopped (rooms are kept in $REDIS_DIR; logs in $LOGS)"
source scripts/processes.sh
NAMES=()

# Another redis may already hold the port; only an answer from ours (its pid in INFO) counts. The
# timeout is for a port held by something that accepts and never answers.
redis_is_ours() {
  timeout 2 redis-cli -p "$REDIS_PORT" info server 2>/dev/null | tr -d '\r' | grep -qx "process_id:$1"
}

redis-server --port "$REDIS_PORT" --bind "$HOST" --dir "$PWD/$REDIS_DIR" --save "" --appendonly yes \
  --daemonize no >"$LOGS/redis.log" 2>&1 &
REDIS_PID=$!
PIDS+=("$REDIS_PID")
wait_until "redis-server on port $REDIS_PORT" "$REDIS_PID" "$LOGS/redis.log" redis_is_ours "$REDIS_PID"

NODES=$(printf "$HOST:%s," "${NODE_PORTS[@]}")
NODES=${NODES%,}
# Every node accepts WebSockets from any origin: a page served by one node reconnects to another
# with its own node's origin.
for port in "${NODE_PORTS[@]}"; do
  "$BIN" --host "$HOST" --port "$port" --redis "redis://$HOST:$REDIS_PORT" --node-id "$HOST:$port" \
    --allowed-origins '*' --public Public >"$LOGS/node-$port.out" 2>"$LOGS/node-$port.err" &
  pid=$!
  PIDS+=("$pid")
  NAMES+=("$HOST:$port pid $pid")
  wait_until "node $HOST:$port" "$pid" "$LOGS/node-$port.err" grep -q "scrollcast listening on" "$LOGS/node-$port.out"
done

echo
echo "Scrollcast cluster: redis-server pid $REDIS_PID on port $REDIS_PORT (data in $REDIS_DIR), three nodes:"
for i in "${!NODE_PORTS[@]}"; do
  echo "  http://$HOST:${NODE_PORTS[$i]}/?room=demo&nodes=$NODES   (node ${NAMES[$i]})"
done
echo "Try failover: open a URL, then kill its node (kill -9 PID with the pid above); the page moves to the next node."
echo "Logs: $LOGS/. Ctrl-C stops the nodes and redis-server."
# Returns when every process has exited, or at Ctrl-C (the trap stops the rest).
wait
