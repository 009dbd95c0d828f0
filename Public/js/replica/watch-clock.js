// A watcher's clock (docs/wasm.md, "Watchers draw what they know"): the room time a watcher's
// display frame stands for. It never passes the room's complete history (the latest mark: every
// change at or before it has come), and it runs a delay behind the page's own clock, chosen from
// how stale the mark gets at the display frames in motion. It changes that delay only by running
// slightly slower or faster than real time (no clock judder, docs/measures.md), or at once where
// nobody can see it: while its picture is still. In the inputs stream the marks come only with
// batches and beats, up to a beat interval apart while the room moves with nobody driving: the
// delay covers that gap from the first picture on (`gap`, set by stream.js).

import { nearestRank } from "../measure/quantile.js";

// Where the mark comes from: min(arrival − mark) over this many marks (about 4 s in motion).
const BASE_WINDOW = 240;
const ARRIVALS_KEPT = 4000;   // [arrival, mark, moving] of the marks since the connection began, for the tests (test hook watchClock)
// How stale the mark got beyond that, at this many display frames in motion (10 s at 60 Hz): the
// delay covers all but the stalest half per cent of them (a clock that waits at the mark there
// judders on about that share of frames; covering the very largest would add the link's worst
// stall to every frame's lag). A lossy link's stalls (a lost segment: 200 ms) come every few
// seconds; a window that forgot them sooner would run into the next one.
const NEED_WINDOW = 600;
const NEED_QUANTILE = 0.99;
const MARGIN_MS = 2;          // over that staleness: a display frame's timing noise
const FIRST_EXTRA_MS = 34;    // at least this until a second's worth is measured: two display frames
const FIRST_NEEDS = 60;
// Until the window is full, a link whose join took longer than WAN_ROUND_TRIP_MS is taken to
// stall as a lossy wide-area link does (a retransmission, TCP's minimum timeout, and a frame):
// the first stall comes before the window has seen one (docs/wasm.md).
const WAN_ROUND_TRIP_MS = 40;
const STALL_EXTRA_MS = 217;
const GROW = 0.1;             // the delay grows with the clock at 0.9 × real time …
const SHRINK = 0.05;          // … and shrinks at 1.05 ×: both well inside the quarter judder allows
const STILL_GUARD_MS = 0.5;   // a jump over a still stretch lands this far before the next change

export class WatchClock {
  constructor() {
    this.needs = [];    // staleness beyond the base at display frames in motion, kept across connections
    this.prior = 0;     // the staleness assumed until the window is full
    this.roundTrip = null;
    this.resets = 0;    // new connections where it ran: it starts again at the next picture (docs/wasm.md)
    this.skew = 0;      // test hook only: a clock drawing this far past the newest mark (or this far behind its own time)
    this.quantum = 0;   // test hook only: a clock that moves in steps of this many ms (a juddering clock)
    // The longest the server may leave between two marks while the room moves (ms): 0 where the
    // marks come with every frame; the inputs stream's beat bound there (docs/protocol.md).
    this.gap = 0;
    this.markAt = null;
    this.reset();
  }

  /**
   * A new connection (its join's `roundTrip`, ms): marks and the page-to-room offset are learnt
   * again; the link's staleness is kept.
   */
  reset(roundTrip = null) {
    if (Number.isFinite(roundTrip)) {
      this.roundTrip = roundTrip;
      this.prior = roundTrip > WAN_ROUND_TRIP_MS ? STALL_EXTRA_MS : 0;
    }
    if (this.markAt !== null) this.resets += 1;
    this.mark = -Infinity;
    this.markAt = null;
    this.offsets = [];
    this.arrivals = [];
    this.base = null;   // min(arrival − mark): page time minus room time along the fastest path
    this.moving = false;   // the room is in motion at the latest mark
    this.time = null;
    this.lastPage = null;
    this.from = -Infinity;   // no picture before this room time: where the replica's state stands (the inputs stream)
  }

  /**
   * A ping's round trip (ms; the join in the URL counts two): a join that read longer, late as
   * a loading page reads it, is taken as twice this, and the prior with it (RoomClock.pinged).
   */
  pinged(ms) {
    if (!Number.isFinite(ms) || ms < 0 || this.roundTrip === null || 2 * ms >= this.roundTrip) return;
    this.roundTrip = 2 * ms;
    this.prior = this.roundTrip > WAN_ROUND_TRIP_MS ? STALL_EXTRA_MS : 0;
  }

  /**
   * A message carrying mark `m` (a frame's `t`, `applied.complete`, `beat.complete`) arrived at
   * page time `arrival`; `moving`: the room is in motion there (more marks are on their way), or
   * null when the message does not say (a beat: during a hold the room sends one every frame).
   */
  marked(m, arrival, moving = null) {
    if (!Number.isFinite(m) || m < this.mark) return;
    if (moving !== null) this.moving = moving;
    if (m === this.mark) return;
    this.mark = m;
    this.markAt = arrival;
    this.offsets.push(arrival - m);
    if (this.offsets.length > BASE_WINDOW) this.offsets.shift();
    this.base = Math.min(...this.offsets);
    this.arrivals.push([arrival, m, this.moving]);
    if (this.arrivals.length > ARRIVALS_KEPT) this.arrivals.shift();
  }

  /**
   * Page time minus the room time the watcher aims to draw: the base plus how stale the mark was
   * at the display frames in motion (page time minus the latest mark, beyond the base; the
   * NEED_QUANTILE over the window) plus a margin; at least two display frames until a second's
   * worth is measured, the prior until the window is full, and, where marks come `gap` apart,
   * that gap plus how late the marks arrive beyond the base (the NEED_QUANTILE) plus the margin.
   */
  get offset() {
    if (this.base === null) return null;
    const n = this.needs.length;
    const floor = Math.max(n < NEED_WINDOW ? this.prior : 0, n < FIRST_NEEDS ? FIRST_EXTRA_MS : 0, this.#gapNeed());
    return this.base + Math.max(floor, n ? nearestRank(this.needs, NEED_QUANTILE) + MARGIN_MS : 0);
  }

  /**
   * What the gap between marks asks for, known before any is measured: the mark can be a whole
   * gap old when the next one leaves, and that one arrives as late as the marks do. (Measured
   * staleness alone learns it only after the clock waited at the first gaps of a fling.)
   */
  #gapNeed() {
    if (!(this.gap > 0) || this.base === null) return 0;
    return this.gap + nearestRank(this.offsets.map((o) => o - this.base), NEED_QUANTILE) + MARGIN_MS;
  }

  /**
   * The room time to draw at page time `pageTime` (a display frame's vsync), or null before any
   * mark. `still`: the picture last drawn does not change before room time `nextChange` (the next
   * change that has come; Infinity when none has).
   */
  at(pageTime, still = false, nextChange = Infinity) {
    if (this.markAt === null) return null;
    // While the room moves the marks come every frame: how stale the latest is now is what the
    // delay must cover where its picture moves too. (A room at rest sends none: nothing to cover.)
    if (!still && this.moving && this.time !== null) {
      this.needs.push(pageTime - this.mark - this.base);
      if (this.needs.length > NEED_WINDOW) this.needs.shift();
    }
    // The test hook's skew: behind is a longer delay; ahead is drawn past the newest mark (below),
    // whatever delay the clock keeps: a guess on every display frame in motion.
    const target = pageTime - this.offset + Math.min(0, this.skew);
    const cap = this.mark;
    let next;
    if (this.time === null) {
      next = target;
    } else {
      const step = Math.max(0, pageTime - this.lastPage);
      const free = this.time + step;
      next = free + Math.max(-GROW * step, Math.min(SHRINK * step, target - free));
      // A still picture hides the clock: it waits, or catches up, up to just before the next change.
      if (still && nextChange > this.time) {
        const hidden = Math.max(this.time, Math.min(target, nextChange - STILL_GUARD_MS));
        next = target < free ? hidden : Math.max(next, hidden);
      }
    }
    this.time = Math.max(this.time ?? -Infinity, Math.min(this.from, cap), Math.min(next, cap));
    this.lastPage = pageTime;
    // The test hooks' known-bad clocks: ahead of the marks (guesses), or in steps (never past the mark).
    const drawn = this.skew > 0 ? cap + this.skew : this.time;
    return this.quantum > 0 ? Math.min(cap, Math.ceil(drawn / this.quantum) * this.quantum) : drawn;
  }
}
