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

const MARK_GAPS = 240;      // mark arrivals the watcher's delay is measured over (about 4 s in motion)
const IDLE_GAP_MS = 250;    // marks further apart came across a rest: not the link's jitter
const FIRST_DELAY_MS = 34;  // beyond the first mark's age, before any gap is measured: two display frames
const DELAY_MARGIN_MS = 2;
// Not the largest: a stall of the link or of the page's own thread (messages held, then a burst)
// would set the lag for seconds; past the quantile the clock waits at the mark instead.
const OFFSET_QUANTILE = 0.95;
const STEER = 0.2;          // the watcher's clock runs at 0.8…1.2 × real time while it steers: no judder (docs/measures.md)

/**
 * A watcher's clock (docs/wasm.md, "Watchers draw what they know"): it runs `offset` behind the
 * page's own clock, and never past the room's complete history (the latest mark: every change at
 * or before it has come). The offset is how stale the latest mark gets before the next arrives
 * (the p95 over the last marks, plus a margin): it follows the link's jitter, so the clock
 * neither waits at the mark nor jumps. It steers toward its target within ±20 % of real time,
 * and moves at once only over a stretch where the picture is still.
 */
export class WatchClock {
  constructor() { this.reset(); }

  reset() {
    this.mark = -Infinity;
    this.markAt = null;
    this.gaps = [];
    this.time = null;
    this.lastPage = null;
    this.skew = 0;   // test hook only: a clock drawing past what it knows
  }

  /** A message carrying mark `m` (a frame's `t`, `applied.complete`, `beat.complete`) arrived at page time `arrival`. */
  marked(m, arrival) {
    if (!Number.isFinite(m) || m <= this.mark) return;
    if (this.markAt !== null && arrival - this.markAt < IDLE_GAP_MS) {
      this.gaps.push(arrival - this.mark);
      if (this.gaps.length > MARK_GAPS) this.gaps.shift();
    }
    this.mark = m;
    this.markAt = arrival;
  }

  /**
   * Page time minus the room time the watcher draws: how stale the latest mark gets before the
   * next one arrives (page time at arrival minus the previous mark), p95 over the last marks
   * in motion, plus a margin; before any such gap, the latest mark's own age plus two frames.
   */
  get offset() {
    if (!this.gaps.length) return this.markAt - this.mark + FIRST_DELAY_MS;
    const sorted = [...this.gaps].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(OFFSET_QUANTILE * sorted.length) - 1)] + DELAY_MARGIN_MS;
  }

  /**
   * The room time to draw at page time `pageTime`, or null before any mark. `stillUntil`: the
   * picture does not change before that room time (the room at rest until its next change).
   */
  at(pageTime, stillUntil = -Infinity) {
    if (this.markAt === null) return null;
    // The test hook's skew moves the target; ahead of the marks it also lifts the cap (a known-bad clock).
    const target = pageTime - this.offset + this.skew;
    const cap = this.skew > 0 ? Infinity : this.mark;
    let next;
    if (this.time === null) {
      next = target;
    } else {
      const step = pageTime - this.lastPage;
      next = this.time + step + Math.max(-STEER * step, Math.min(STEER * step, target - (this.time + step)));
      if (target > next && stillUntil > this.time) next = Math.min(target, stillUntil);
    }
    this.time = Math.max(this.time ?? -Infinity, Math.min(next, cap));
    this.lastPage = pageTime;
    return this.time;
  }
}
