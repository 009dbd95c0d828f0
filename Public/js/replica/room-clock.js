// The room's clock as the page estimates it (docs/wasm.md, "The clock"): which room time a
// display frame stands for. Each server frame (and each `applied` message) says a room time `t`
// and arrives at some page time; the smallest `arrival − t` over the last ones is the
// least-delayed path, so `pageTime − that` is the room time of messages arriving now without
// queueing. `lead` moves the clock on to the room's present: how much later than that the server
// applies an input sent now (measured from this page's own inputs), so a driver sees its own input
// at once.

const WINDOW = 240;   // samples (4 s at 60 Hz): long enough to catch a quick one, short enough to follow drift
const LEADS = 31;     // own inputs the lead is the median of

export class RoomClock {
  constructor() {
    this.offsets = [];
    this.offset = null;   // min(arrival − t) over the window
    this.sent = [];       // own inputs applied: {sentAt (page time), applied (room time)}
    this.guess = 0;       // the lead before any own input came back: the join's round trip
    this.driving = false; // this page has sent an input: only then does the clock lead
    this.last = -Infinity;
    this.skew = 0;        // test hook only (window.scrollcast.test.skewClock): a known-bad clock
  }

  /**
   * A message saying room time `t` arrived at page time `arrival`: a frame, or an `applied`
   * (its `t` is never later than the room's present when it was sent, so it never puts the
   * clock ahead). A snapshot's frame can be seconds old (a room at rest sends no frames); the
   * first fresh one replaces it.
   */
  frameArrived(t, arrival) {
    if (!Number.isFinite(t)) return;
    this.offsets.push(arrival - t);
    if (this.offsets.length > WINDOW) this.offsets.shift();
    this.offset = Math.min(...this.offsets);
  }

  /** Room time at page time `pageTime` (arrival-based, without the lead), or null before any frame. */
  arrivalTime(pageTime) {
    return this.offset === null ? null : pageTime - this.offset;
  }

  /** The join's round trip (ms): the lead until this page's own inputs measure it. */
  joinRoundTrip(ms) {
    if (Number.isFinite(ms) && ms >= 0) this.guess = ms;
  }

  /** This page sent an input (from now on the clock leads, so its inputs show at once). */
  inputSent() { this.driving = true; }

  /** One of our inputs, sent at page time `sentAt`, was applied at room time `applied`. */
  inputApplied(sentAt, applied) {
    this.sent.push({ sentAt, applied });
    if (this.sent.length > LEADS) this.sent.shift();
  }

  /**
   * How much later than the arrival clock the server applies an input sent now: the lower median,
   * over our recent inputs, of (applied − arrival clock at sending), the clock taken as it is
   * now. A sample taken against an old clock (a stale snapshot frame) would say seconds; rebased
   * on the present offset it says the link's round trip.
   */
  get lead() {
    if (!this.driving || this.offset === null) return 0;
    if (!this.sent.length) return this.guess;
    const leads = this.sent.map((s) => s.applied - (s.sentAt - this.offset)).sort((a, b) => a - b);
    return Math.max(0, leads[Math.floor((leads.length - 1) / 2)]);
  }

  /** The room time a display frame at page time `pageTime` stands for: never earlier than the last one. */
  displayTime(pageTime) {
    const t = this.arrivalTime(pageTime);
    if (t === null) return null;
    this.last = Math.max(this.last, t + this.lead + this.skew);
    return this.last;
  }

  /** A new connection: a new path, perhaps a new run of the room (its clock starts again). */
  reset() {
    this.offsets = [];
    this.offset = null;
    this.sent = [];
    this.last = -Infinity;
  }
}
