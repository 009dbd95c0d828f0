// The room's clock as the page estimates it (docs/wasm.md, "The clock"): which room time a
// display frame stands for. Each server frame (and each `applied` message) says a room time `t`
// and arrives at some page time; the smallest `arrival − t` over the last ones is the
// least-delayed path, so `pageTime − that` is the room time of messages arriving now without
// queueing. A driver's clock runs `lead` ahead of that: far enough that the inputs it stamps with
// its clock (`at`) reach the room before the room's present does, so the room applies them where
// the driver drew them.

import { TimeMapper } from "./engine.js";

const WINDOW = 240;       // samples (4 s at 60 Hz): long enough to catch a quick one, short enough to follow drift
const MARGIN_MS = 17;     // a display frame: the lead's margin over what it measured
// Short of what the room holds at most (TimeMapper.MAX_LEAD): a stamp is rounded up past the
// picture on screen, and one beyond the bound by the page's reckoning of the room's present is
// predicted clamped there, where the room (whose present is later) holds it to the stamp: the
// move drawn a microsecond before the room has it, a wrong picture of a whole move, and counted
// late, which held the lead at the bound for good (seen on 4g: 1-2 pictures 97 pt off a fling).
const MAX_LEAD_MS = TimeMapper.MAX_LEAD - 5;
// The lead starts at what the join measured plus, on anything but a quiet local link, a stall's
// worth: a lost segment holds a direction of the link for a retransmission (the link emulator's
// stall, 200 ms: docs/links.md), a few times a minute of motion on 4g, and an input behind one is
// late unless the lead covers it. That start is kept: given back with time (a 30 s half-life),
// the later stalls found it short, 0.67 % of a 4g driver's pictures wrong in a quiet release
// bench run (goal 0.5 %), and without it the first drags on 4g drew late moves blended over 4-7
// display frames. A late input raises the lead further; that raise is given back slowly (halved
// every LEAD_HALF_LIFE_MS of real time while driving), so a link that stalls every few seconds of
// motion keeps it, while one that stalled once gets back to its start. The price is what
// watchers see of a driver: that much later (docs/measures.md, "Driver to watcher").
const WAN_ROUND_TRIP_MS = 40;
const STALL_MS = 200;
// The join's round trip counts from the socket's making to the snapshot's arrival as the page
// read it, and a page still compiling its script reads it late (73-239 ms on a quiet loopback,
// seen): that start, plus a stall's worth for a "slow" link, put a driver 290-456 ms ahead of a
// room a millisecond away, and watchers saw its moves that late. The room's `held` answers say how
// long the inputs really took (the room's present when each came, less the arrival clock's time
// when it left), stamped by the room and by the page when it sends, neither read late: over the
// last PATH_WINDOW of them, the slowest plus a margin is the start on a quiet link: the quickest
// within QUIET_PATH_MS, half the join's threshold, as the join counts two round trips (TCP's
// handshake, then the upgrade) where an input's path is one. On a slower link (broadband's 15 ms
// each way and beyond) the join's start stays (its stall allowance is what the 4g bench needed).
const PATH_WINDOW = 32;
const QUIET_PATH_MS = WAN_ROUND_TRIP_MS / 2;
const SENT_KEPT = 256;   // inputs in flight: 4 s of 60 Hz moves, past the room's bound on holding
const LEAD_HALF_LIFE_MS = 30_000;
const LEAD_STEER = 0.2;   // the lead changes by at most a fifth of real time: no clock judder (docs/measures.md)

/** The start a join's round trip of `ms` gives: it, a frame, and a stall's worth beyond a quiet local link. */
function startFor(ms) {
  return Math.min(MAX_LEAD_MS, ms + MARGIN_MS + (ms > WAN_ROUND_TRIP_MS ? STALL_MS : 0));
}

export class RoomClock {
  /** The most this clock leads (ms). */
  static MAX_LEAD = MAX_LEAD_MS;

  constructor() {
    this.offsets = [];
    this.offset = null;   // min(arrival − t) over the window
    this.base = 0;        // the lead from the join: its round trip plus a margin
    this.roundTrip = null; // the join's (ms), or twice a quicker ping's, for the watcher's clock too
    this.joined = null;    // the join's as the page read it (ms)
    this.target = null;   // the lead wanted: the base, raised by late inputs, given back with time
    this.current = 0;     // the lead in use, steering toward the target
    this.raised = 0;      // the target's raise over the base kept through a new connection (the same link)
    this.steeredAt = null;
    this.late = 0;        // own inputs the room applied elsewhere than stamped (late, or past its bound)
    this.driving = false; // this page has sent an input: only then does the clock lead
    this.last = -Infinity;
    this.lastStamp = -Infinity;   // the newest `at` given (inputStamp)
    this.skew = 0;        // test hook only (window.scrollcast.test.skewClock): a known-bad clock
    this.held = null;     // test hook only (holdLead): a lead kept whatever the room says, past the bound too
    this.joinBase = 0;    // the base the join's round trip gave
    this.aheads = [];     // the last held inputs': the room's time when heard less the page's when sent
    this.sent = new Map();   // stamped input id → page time it left (the newest SENT_KEPT)
    this.heldCount = 0;   // `held` answers to our inputs (for the tests)
  }

  /**
   * A message saying room time `t` arrived at page time `arrival`: a frame, a `beat`, or an
   * `applied` (its `t` is never later than the room's present when it was sent, so it never puts
   * the clock ahead). A snapshot's frame can be seconds old (a room at rest sends no frames); the
   * beat after it, or the first fresh frame, replaces it.
   */
  frameArrived(t, arrival) {
    if (!Number.isFinite(t)) return;
    this.offsets.push(arrival - t);
    if (this.offsets.length > WINDOW) this.offsets.shift();
    this.offset = Math.min(...this.offsets);
    this.#rebase();
  }

  /** Room time at page time `pageTime` (arrival-based, without the lead), or null before any frame. */
  arrivalTime(pageTime) {
    return this.offset === null ? null : pageTime - this.offset;
  }

  /**
   * The join's round trip (ms): an input sent now reaches the room about that long after the
   * arrival clock's time (one way down, one way up), so the lead starts there plus a margin,
   * plus a stall's worth on a join slower than a quiet local link's.
   */
  joinRoundTrip(ms) {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.roundTrip = this.joined = ms;
    this.base = this.joinBase = startFor(ms);
  }

  /**
   * A ping's round trip (ms; one round trip where a join in the URL counts two, TCP's handshake
   * and the upgrade). A quiet local link's, where the join read slower (late, as a page still
   * loading reads it), drops the stall's worth from the start; the join's round trip stays in it,
   * since the arrival clock's first samples were read as late as the join, and a start short of
   * that had the first drag's inputs reach the room late (one by 136 ms, another by 310, with
   * the lead raised to 351 ms for the next 30 s). The held answers take it back down once the
   * room's motion has put the arrival clock right (#rebase).
   */
  pinged(ms) {
    if (!Number.isFinite(ms) || ms < 0 || this.roundTrip === null || 2 * ms >= this.roundTrip) return;
    this.roundTrip = 2 * ms;
    if (this.roundTrip > WAN_ROUND_TRIP_MS) return;
    this.joinBase = Math.min(MAX_LEAD_MS, this.joined + MARGIN_MS);
    if (this.joinBase >= this.base) return;
    this.#moveBase(this.joinBase);
    this.#rebase();
  }

  /**
   * The room holds one of our stamped inputs (a `held` message): it arrived at room time `t`.
   * Kept as how far the room's clock was then ahead of the page's when the input left, so that
   * what it says of the path follows the arrival clock as that settles (#rebase).
   */
  inputHeld({ input, t }) {
    const left = this.sent.get(input);
    if (left === undefined || !Number.isFinite(t)) return;
    this.heldCount += 1;
    this.aheads.push(t - left);
    if (this.aheads.length > PATH_WINDOW) this.aheads.shift();
    this.#rebase();
  }

  /**
   * On a quiet link, a start the join's round trip made longer comes down to what the held
   * inputs took from the arrival clock's time (`ahead + offset`), the slowest of them plus a
   * margin; a raise from late inputs stays on top. Elsewhere the join's start stays.
   */
  #rebase() {
    if (this.aheads.length === 0 || this.offset === null) return;
    const paths = this.aheads.map((ahead) => ahead + this.offset);
    const quiet = Math.min(...paths) <= QUIET_PATH_MS;
    const base = quiet ? Math.min(this.joinBase, Math.max(0, ...paths) + MARGIN_MS) : this.joinBase;
    if (base !== this.base) this.#moveBase(base);
  }

  /** A new start: the target moves with it, so a raise from late inputs stays on top. */
  #moveBase(base) {
    if (this.target !== null) this.target = Math.max(base, this.target + (base - this.base));
    this.base = base;
  }

  /**
   * This page sends an input (from now on the clock leads, at once: a room at rest shows no jump);
   * one it stamps names its `id`, sent at page time `pageTime`, to be found again by `inputHeld`.
   */
  inputSent(id = null, pageTime = null) {
    this.driving = true;
    if (id !== null && Number.isFinite(pageTime)) {
      this.sent.set(id, pageTime);
      if (this.sent.size > SENT_KEPT) this.sent.delete(this.sent.keys().next().value);
    }
    if (this.target !== null) return;
    this.target = Math.min(MAX_LEAD_MS, this.base + this.raised);
    this.current = this.target;
  }

  /**
   * One of our inputs, stamped (or predicted) at room time `at` with lead `lead`, was applied at
   * room time `applied`. Late (mapped from its `t`), the lead grows to the one it was sent with
   * plus the lateness plus a margin; earlier (held only up to the room's bound), it shrinks by
   * the difference (docs/wasm.md, "The clock"). On time it changes nothing: the raise is given
   * back with time (#steer), not per input, so a burst of moves does not undo it in a second.
   */
  inputApplied(lead, at, applied) {
    if (this.target === null || applied === at) return;
    this.late += 1;
    // Earlier than stamped: the room held it only as far as it holds (MAX_LEAD_MS); the lead was too long.
    if (applied < at) this.target = Math.max(MARGIN_MS, Math.min(this.target, lead - (at - applied)));
    else this.target = Math.min(MAX_LEAD_MS, Math.max(this.target, lead + (applied - at) + MARGIN_MS));
  }

  /** How far ahead of the arrival clock a driver's clock runs (0 for a page that only watches). */
  get lead() {
    if (!this.driving || this.offset === null) return 0;
    return this.held ?? (this.target !== null ? this.current : 0);
  }

  #steer(pageTime) {
    if (this.target !== null && this.steeredAt !== null) {
      const passed = Math.max(0, pageTime - this.steeredAt);
      this.target = this.base + (this.target - this.base) * 2 ** (-passed / LEAD_HALF_LIFE_MS);
      const most = LEAD_STEER * passed;
      this.current += Math.max(-most, Math.min(most, this.target - this.current));
    }
    this.steeredAt = Math.max(this.steeredAt ?? pageTime, pageTime);
  }

  /** The room time of the driver's clock at page time `pageTime` (an input's stamp), or null before any frame. */
  stamp(pageTime) {
    const t = this.arrivalTime(pageTime);
    return t === null ? null : t + this.lead + this.skew;
  }

  /**
   * The `at` of an input sent at page time `pageTime`, or null before any frame: after the
   * picture on screen (a change at its time would be in it), rounded up to the room's grid of
   * input times (1/256 ms, RoomTime.swift), so the room applies it at this very time and the
   * prediction at it needs no correction; never before the last one.
   */
  inputStamp(pageTime) {
    this.inputSent();
    const at = this.stamp(pageTime);
    if (at === null) return null;
    this.lastStamp = Math.max(this.lastStamp, Math.ceil(Math.max(at, this.last + 0.001) * 256) / 256);
    return this.lastStamp;
  }

  /** The room time a display frame at page time `pageTime` stands for: never earlier than the last one. */
  displayTime(pageTime) {
    this.#steer(pageTime);
    const t = this.stamp(pageTime);
    if (t === null) return null;
    this.last = Math.max(this.last, t);
    return this.last;
  }

  /** A new connection: a new path, perhaps a new run of the room (its clock starts again). */
  reset() {
    this.offsets = [];
    this.offset = null;
    this.last = -Infinity;
    this.lastStamp = -Infinity;   // the room's clock may start again
    this.aheads = [];   // perhaps another node, another run of the room
    this.sent.clear();
    // The link is the same: a raise it earned is kept (still given back with time, #steer).
    if (this.target !== null) this.raised = Math.max(0, this.target - this.base);
    this.target = null;   // set from the new join's round trip at the next input
    this.current = 0;
  }
}
