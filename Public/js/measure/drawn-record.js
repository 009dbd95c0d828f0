// The page's record of what it showed at each display frame: a fixed-size ring of typed-array
// columns, so recording costs no allocation per frame. Tests and the measures read plain objects
// through `entries()` / `since()`; see docs/measures.md for what each field means.

/** How many display frames the ring keeps (about 67 s at 60 Hz, 33 s at 120 Hz). */
export const DRAWN_RECORD_CAPACITY = 4000;

const ANIMATING = 1;   // the server frame shown says its picture changes with room time
const OWN_INPUT = 2;   // the frame's `input` names this viewer
const FRESH = 4;       // this display frame drew a server frame not drawn before
const REPLICA = 8;     // the picture is the replica's (else a server frame)
const NEVER = 16;      // the picture will never be judged (its judge stopped or had passed its time)
const RESUMED = 32;    // the first entry after a pause (the page explored): only a reference

/**
 * One entry per display frame (requestAnimationFrame callback) that drew or kept a server frame.
 * Entry fields: `n` (index since the page loaded, never reused), `at` (performance.now() in the
 * callback), `vsync` (the callback's timestamp argument, shared by every callback of one display
 * frame), `seq`, `t` (room ms the picture stands for), `offset` (content offset drawn, pt),
 * `animating`, `input` (the frame's input id, or -1), `own` (that input is this viewer's) and
 * `fresh` (a newly arrived server frame was drawn, rather than the previous one kept), `replica`
 * (the picture is the replica's, not a server frame), `never` (it will never be judged), `room`
 * (the room's own offset at `t`, once confirmed: NaN until then), `present` (the page's
 * estimate of the room's present at `at`) and `resumed` (the first entry after a pause).
 */
export class DrawnRecord {
  constructor(capacity = DRAWN_RECORD_CAPACITY) {
    this.capacity = capacity;
    this.at = new Float64Array(capacity);
    this.vsync = new Float64Array(capacity);
    this.seq = new Float64Array(capacity);     // Float64: seq may exceed 2^32
    this.t = new Float64Array(capacity);
    this.offset = new Float64Array(capacity);
    this.input = new Float64Array(capacity);
    this.room = new Float64Array(capacity);
    this.present = new Float64Array(capacity);
    this.flags = new Uint8Array(capacity);
    /** Entries recorded since the page loaded; the ring holds the last `capacity` of them. */
    this.total = 0;
    this.resumeNext = false;   // paused: the next entry is the first after the pause
  }

  /** Nothing is recorded for a while (the page draws its own table, explore.js): the next entry says so. */
  pause() { this.resumeNext = true; }

  /**
   * Records one display frame showing `frame` (a parsed frame), the room's offset at its time
   * when already known (`room`, else NaN) and the room's present as estimated (`present`);
   * returns the entry's index `n`.
   */
  push(at, vsync, frame, own, fresh, room = NaN, present = NaN, replica = false) {
    const i = this.total % this.capacity;
    this.room[i] = room;
    this.present[i] = present;
    this.at[i] = at;
    this.vsync[i] = vsync;
    this.seq[i] = typeof frame.seq === "number" ? frame.seq : -1;
    this.t[i] = typeof frame.t === "number" ? frame.t : NaN;
    this.offset[i] = typeof frame.offset === "number" ? frame.offset : NaN;
    this.input[i] = typeof frame.input?.id === "number" ? frame.input.id : -1;
    this.flags[i] = (frame.animating === true ? ANIMATING : 0) | (own ? OWN_INPUT : 0) | (fresh ? FRESH : 0) | (replica ? REPLICA : 0)
      | (this.resumeNext ? RESUMED : 0);
    this.resumeNext = false;
    this.total += 1;
    return this.total - 1;
  }

  /** Entry `n`'s picture will never be judged. */
  abandon(n) {
    if (n >= this.first && n < this.total) this.flags[n % this.capacity] |= NEVER;
  }

  /** The room's offset at entry `n`'s room time, once the confirmed engine computed it. */
  confirm(n, room) {
    if (n >= this.first && n < this.total) this.room[n % this.capacity] = room;
  }

  /** Entries held now. */
  get length() { return Math.min(this.total, this.capacity); }

  /** Index (`n`) of the oldest entry held. */
  get first() { return this.total - this.length; }

  /** The entry with index `n` as a plain object, or null when not held. */
  entry(n) {
    if (n < this.first || n >= this.total) return null;
    const i = n % this.capacity;
    const flags = this.flags[i];
    return {
      n, at: this.at[i], vsync: this.vsync[i], seq: this.seq[i], t: this.t[i], offset: this.offset[i],
      animating: (flags & ANIMATING) !== 0, input: this.input[i], own: (flags & OWN_INPUT) !== 0,
      fresh: (flags & FRESH) !== 0, replica: (flags & REPLICA) !== 0, never: (flags & NEVER) !== 0,
      resumed: (flags & RESUMED) !== 0, room: orNull(this.room[i]), present: orNull(this.present[i]),
    };
  }

  /** Entries with index ≥ `from` (and < `to`), oldest first, as plain objects. */
  since(from = 0, to = this.total) {
    const out = [];
    for (let n = Math.max(from, this.first); n < Math.min(to, this.total); n += 1) out.push(this.entry(n));
    return out;
  }

  /** The last `count` entries (all held when omitted), oldest first. */
  entries(count = this.capacity) {
    return this.since(this.total - Math.min(count, this.length));
  }
}

const orNull = (x) => (Number.isNaN(x) ? null : x);
