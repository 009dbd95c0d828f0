// What the replica in the page tells (window.scrollcast.state.replica, docs/wasm.md): counts and
// logs it writes and nothing reads back to decide. Whether the replica may run and whether it
// runs are its own control state (page-replica.js); a report joins the two in a frozen copy, so
// a reader can neither steer the replica through it nor see it change under its feet.

const PREDICTIONS_KEPT = 64;
const REFUSALS_KEPT = 10;

export class ReplicaTelemetry {
  constructor() {
    this.compared = 0;            // server frames checked against the replica (compare.js)
    this.identical = 0;
    this.mismatches = 0;
    this.lastMismatch = null;
    this.mismatchLog = [];
    this.starts = 0;              // times the replica started from a frame at rest
    this.predicted = 0;           // own inputs drawn before the server applied them
    this.applied = 0;             // `applied` messages taken
    this.drawn = 0;               // pictures the replica made
    this.predictionLog = [];      // what each own input was predicted as, and what the server made of it
    this.refusedPredictions = [];
    this.marks = false;           // the server tells how far the room's history is complete
    this.engineRestarts = 0;      // fresh engines made after traps (setup.js)
    this.error = null;            // why the replica last stopped
    // The inputs stream (stream.js, docs/protocol.md "The inputs stream"): which stream the page takes now.
    this.stream = "frames";       // "inputs" while it replicates from the room's changes
    this.beatsChecked = 0;        // beats whose hash was checked against the replica's own frame
    this.beatsMatched = 0;
    this.beatsUnchecked = 0;      // beats that came while the replica waited for a keyframe
    this.keyframes = 0;           // keyframes asked for (after a mismatch, or to start again)
    this.keyframeReason = null;   // why the last was asked
    this.fallbacks = 0;           // times the page went back to frames (refused 4100/4101, moved, failed)
    this.fallbackReason = null;
    this.batches = 0;
  }

  /** Notes an own input's prediction (the newest PREDICTIONS_KEPT are kept). */
  predictionMade(entry) {
    this.predictionLog.push(entry);
    if (this.predictionLog.length > PREDICTIONS_KEPT) this.predictionLog.shift();
  }

  /** The server applied own input `id` at room time `t`. */
  predictionApplied(id, t) {
    const note = this.predictionLog.find((n) => n.id === id);
    if (note) note.applied = t;
  }

  /** The engine refused the prediction of own input `id` with `code` (it shows once the server applies it). */
  predictionRefused(id, code, time) {
    this.refusedPredictions = [...this.refusedPredictions.slice(1 - REFUSALS_KEPT), { id, code, time }];
    const note = this.predictionLog.find((n) => n.id === id);
    if (note) note.refused = code;
  }

  /** A frozen copy with the replica's `enabled` and `running`: what the page's state shows. */
  report({ enabled, running }) {
    const copy = structuredClone({ ...this, enabled, running });
    for (const value of Object.values(copy)) if (value && typeof value === "object") Object.freeze(value);
    return Object.freeze(copy);
  }
}

/** The report of a page without a replica (`reason`: ?replica=off, no WebAssembly). */
export function replicaOffReport(reason) {
  return Object.freeze({ enabled: false, running: false, compared: 0, identical: 0, mismatches: 0, error: reason,
                         stream: "frames", beatsChecked: 0, beatsMatched: 0, keyframes: 0, fallbacks: 0 });
}
