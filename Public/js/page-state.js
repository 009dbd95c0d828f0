// The page's state, one object the page keeps (page.js, page-room.js, page-picture.js) and tests
// read through window.scrollcast.state, so a test sees what the page knows (and writes none of it).

/**
 * A fresh page state for `room`, before the first connection. `replica()` gives the replica's
 * report (replica/telemetry.js) and `drawn()` the display frames recorded (measure/), read when
 * the state is: they are other objects' to keep.
 */
export function createPageState({ room, requestedScene, sentDriverKey, askedLock, nodes, replica, drawn }) {
  const state = {
    room,
    requestedScene,           // ?scene=, sent in join (it only matters if the join creates the room)
    sceneName: null,          // the room's scene, from the snapshot
    joinRefused: null,        // the server's reason when it refused our join (not retried)
    // Who may drive: "key" (we hold the locked room's key), "watch" (locked, we have no key),
    // "rejected" (locked, our key was not accepted), "open" (not locked), "unknown" (not joined yet).
    // The key itself is never put here.
    driveMode: "unknown",
    sentDriverKey,
    askedLock,
    ownInputsApplied: 0,      // frames that applied a new input of ours (0 for a watcher)
    connected: false,
    joined: false,
    nodes,                    // the "host:port" nodes this page may connect to (?nodes=, else its own)
    node: null,               // the node the latest status is about: connected to, or retrying next
    protocol: null,           // the subprotocol in use: "scrollcast.v2" (binary) or "scrollcast.v1" (JSON)
    viewer: null,
    viewers: 0,
    driver: null,
    snapshots: 0,
    resumes: 0,               // joins answered with `resumed` (only what was missed) instead of a snapshot
    reconnecting: false,      // "reconnecting" is shown: the connection has been lost for over 500 ms
    reconnectingShownCount: 0,
    lastGapMs: null,          // how long the last loss lasted, until joined again
    reconnectAttempt: 0,
    lastRetryInMs: null,      // the wait before the latest attempt to connect again (0: at once)
    lastFrame: null,          // the newest frame drawn (parsed)
    lastReceivedSeq: null,
    framesReceived: 0,
    framesDrawn: 0,
    framesSkipped: 0,         // received but superseded before an animation frame came
    seqGaps: 0,               // frames the server produced that never reached us
    refusedCount: 0,
    lastRefused: null,
    rowMoves: 0,
    rowMoveVersion: 0,
    order: [],                // row ids per section, kept current with rowMoved
    inputsSent: 0,
    inputsByKind: {},
    lastInputId: 0,
    latency: { median: null, p99: null, samples: 0 },
    measures: null,           // the picture's measures over the last display frames, with the overlay's text (measure/page-measures.js)
    fps: 0,
    reducedMotion: false,
    canvas: { cssWidth: 0, cssHeight: 0, dpr: 1, width: 0, height: 0 },
    errors: [],
    images: { ready: false, background: "none", layers: [] },
  };
  // The engine in the page: enabled, running, compared, identical, mismatches… (a frozen copy).
  Object.defineProperty(state, "replica", { get: replica, enumerable: true });
  Object.defineProperty(state, "drawn", { get: drawn, enumerable: false });
  return state;
}

/**
 * Applies a `rowMoved` to `order` (row ids per section) in place; returns false when it names
 * rows this order does not have. The row id is trusted over the index if they ever disagree.
 */
export function moveRow(order, move) {
  const source = order?.[move.from?.s];
  const target = order?.[move.to?.s];
  if (!source || !target) return false;
  const index = source[move.from.r] === move.rowId ? move.from.r : source.indexOf(move.rowId);
  if (index < 0) return false;
  source.splice(index, 1);
  target.splice(Math.min(Math.max(0, move.to.r), target.length), 0, move.rowId);
  return true;
}
