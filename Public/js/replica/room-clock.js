// The room's clock as the page estimates it (docs/wasm.md, "The page's clock"): which room time a
// display frame stands for. Each server frame says its room time `t` and arrives at some page
// time; the smallest `arrival − t` over the last frames is the least-delayed path, so
// `pageTime − that` is the room time of frames arriving now without queueing. `lead` moves the
// clock on to the room's present: how much later than that the server applies an input sent now
// (measured from this page's own inputs), so a driver sees its own input at once.

const WINDOW = 240;   // frames (4 s at 60 Hz): long enough to catch a quick one, short enough to follow drift

export class RoomClock {
  constructor() {
    this.offsets = [];
    this.offset = null;   // min(arrival − t) over the window
    this.leads = [];
    this.lead = 0;        // median of (applied t − clock at sending) of own inputs
    this.last = -Infinity;
  }

  /** A server frame of room time `t` arrived at page time `arrival`. */
  frameArrived(t, arrival) {
    this.offsets.push(arrival - t);
    if (this.offsets.length > WINDOW) this.offsets.shift();
    this.offset = Math.min(...this.offsets);
  }

  /** Room time at page time `pageTime` (arrival-based, without the lead), or null before any frame. */
  arrivalTime(pageTime) {
    return this.offset === null ? null : pageTime - this.offset;
  }

  /** One of our inputs, sent when `sentClock` was arrivalTime(), was applied at room time `applied`. */
  inputApplied(sentClock, applied) {
    if (sentClock === null) return;
    this.leads.push(applied - sentClock);
    if (this.leads.length > 31) this.leads.shift();
    const sorted = [...this.leads].sort((a, b) => a - b);
    this.lead = Math.max(0, sorted[Math.floor(sorted.length / 2)]);
  }

  /** The room time a display frame at page time `pageTime` stands for: never earlier than the last one. */
  displayTime(pageTime) {
    const t = this.arrivalTime(pageTime);
    if (t === null) return null;
    this.last = Math.max(this.last, t + this.lead);
    return this.last;
  }

  reset() {
    this.offsets = [];
    this.offset = null;
    this.last = -Infinity;
  }
}
