# Sourced by the demo scripts (cluster-demo.sh, demo-link.sh): the processes they start, stopped
# together on exit or Ctrl-C, and waiting for one to be ready. The sourcing script sets NAME (its
# name in messages), STOPPED (the line printed once all stopped) and START_SECONDS, and appends
# each child's pid to PIDS.
PIDS=()
stop_all() {
  trap - EXIT INT TERM
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  echo "$NAME: $STOPPED"
}
trap stop_all EXIT
trap 'exit 130' INT TERM   # exit runs the EXIT trap, which stops everything once

# Waits until `check` succeeds, failing if process `pid` (called `name`) exits first or the
# deadline passes; `log` is shown when it fails.
wait_until() {
  local name=$1 pid=$2 log=$3; shift 3
  local deadline=$((SECONDS + START_SECONDS))
  until "$@"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid" 2>/dev/null && status=0 || status=$?
      echo "$NAME: $name exited (status $status) before it was ready; $log ends with:" >&2
      tail -n 20 "$log" >&2
      exit 1
    fi
    if ((SECONDS > deadline)); then
      echo "$NAME: $name was not ready within $START_SECONDS s; $log ends with:" >&2
      tail -n 20 "$log" >&2
      exit 1
    fi
    sleep 0.1   # polling interval of the condition above
  done
}
