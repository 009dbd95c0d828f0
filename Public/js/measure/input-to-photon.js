// The driver's input-to-photon: from a pointer event (its timestamp, which the input message
// carries as `t`) to the first display frame showing a server frame that applied it (the frame's
// `input` names this viewer and an id at least the input's). Pure bookkeeping, fed by main.js;
// definition in docs/measures.md.

import { nearestRank } from "./quantile.js";

/** Samples kept for p50/p99: the last this many pointer inputs shown. */
export const INPUT_TO_PHOTON_WINDOW = 500;

/** True for the input kinds measured: the pointer's down, moves, up and cancel. */
export function isPointerInput(kind) {
  return typeof kind === "string" && kind.startsWith("pointer");
}

export class InputToPhoton {
  constructor(capacity = INPUT_TO_PHOTON_WINDOW) {
    this.capacity = capacity;
    this.pending = [];                     // {id, t} sent, not yet shown; ids increase
    this.ids = new Float64Array(capacity);
    this.ms = new Float64Array(capacity);
    this.sentIds = new Float64Array(capacity);
    this.sentT = new Float64Array(capacity);
    this.count = 0;                        // samples since the page loaded
    this.sentCount = 0;                    // pointer inputs sent since the page loaded
  }

  /** An input was sent: `id`, its event timestamp `t` (performance.now() clock) and `kind`. */
  sent(id, t, kind) {
    if (!isPointerInput(kind)) return;
    this.pending.push({ id, t });
    if (this.pending.length > this.capacity) this.pending.shift();   // never answered: forget
    const i = this.sentCount % this.capacity;
    this.sentIds[i] = id;
    this.sentT[i] = t;
    this.sentCount += 1;
  }

  /** The server refused input `id`: no frame will show it. */
  refused(id) {
    const i = this.pending.findIndex((p) => p.id === id);
    if (i >= 0) this.pending.splice(i, 1);
  }

  /** A new connection applies none of what the old one sent. */
  reset() {
    this.pending.length = 0;
  }

  /** Display frame at `at` shows a frame that applied our input `appliedId` (and all before it). */
  shown(at, appliedId) {
    while (this.pending.length && this.pending[0].id <= appliedId) {
      const { id, t } = this.pending.shift();
      const i = this.count % this.capacity;
      this.ids[i] = id;
      this.ms[i] = at - t;
      this.count += 1;
    }
  }

  /** p50/p99 (ms, nearest rank) over the last `capacity` samples, and how many that is. */
  summary() {
    const n = Math.min(this.count, this.capacity);
    const values = this.ms.subarray(0, n);
    return { p50: nearestRank(values, 0.5), p99: nearestRank(values, 0.99), samples: n };
  }

  /** The samples in the window, oldest first: [{id, ms}]. */
  samples() {
    return ring(this.count, this.capacity, (i) => ({ id: this.ids[i], ms: this.ms[i] }));
  }

  /** The last `capacity` pointer inputs sent, oldest first: [{id, t}]. */
  sentInputs() {
    return ring(this.sentCount, this.capacity, (i) => ({ id: this.sentIds[i], t: this.sentT[i] }));
  }
}

function ring(total, capacity, read) {
  const out = [];
  for (let n = Math.max(0, total - capacity); n < total; n += 1) out.push(read(n % capacity));
  return out;
}
