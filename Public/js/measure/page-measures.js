// What a viewer sees, measured: the drawn record and the measures of the picture (picture.js),
// kept by the page and shown on the overlay. main.js only feeds this; the arithmetic lives in the
// pure modules beside it. Definitions: docs/measures.md.

import { DrawnRecord } from "./drawn-record.js";
import { pictureMeasures } from "./picture.js";
import { SentInputs } from "./sent-inputs.js";
import { RoomClock } from "../replica/room-clock.js";

/** Display frames the overlay's figures cover: the last 600 recorded (10 s of motion at 60 Hz). */
export const MEASURE_WINDOW = 600;

const fixed = (x, digits) => (x == null ? "–" : x.toFixed(digits));

/** The overlay's two lines for `figures` (pictureMeasures' result). */
export function overlayText(figures) {
  const { wrong, clock, picture, inputToPicture: ip, lag } = figures;
  return {
    judder: `wrong ${fixed(wrong.pct, 1)} % (max ${fixed(wrong.largestPt, 1)} pt) · judder clock ${fixed(clock.pct, 1)} %`
      + ` picture ${fixed(picture.pct, 1)} %`,
    photon: `input→picture ${ip.p50 == null ? "–" : `${Math.round(ip.p50)} ms (p99 ${Math.round(ip.p99)} ms)`}`
      + ` · lag ${lag.p50 == null ? "–" : `${Math.round(lag.p50)} ms`}`,
  };
}

export class PageMeasures {
  constructor() {
    this.record = new DrawnRecord();
    this.sent = new SentInputs();
    this.clock = new RoomClock();   // the room's present as this page can know it, whatever it draws
    this.halfTrip = 0;
    /** The latest figures with the span they cover and the overlay text they gave: one computation. */
    this.latest = null;
    /** performance.now() (ms since navigation began) of the first display frame with a frame. */
    this.firstFrameAt = null;
  }

  /** A message saying room time `t` arrived at page time `at` (a server frame, an `applied`). */
  arrived(t, at) { this.clock.frameArrived(t, at); }

  /** A join's round trip (ms): half of it is the one-way delay added to the arrival clock. */
  roundTrip(ms) { if (Number.isFinite(ms) && ms >= 0) this.halfTrip = ms / 2; }

  /** A ping's round trip (ms): half of it, where less, as a join read late by a loading page is not. */
  pinged(ms) { if (Number.isFinite(ms) && ms >= 0) this.halfTrip = Math.min(this.halfTrip, ms / 2); }

  /** The room's present at page time `at`: the least-delayed arrival clock plus half a round trip. */
  present(at) {
    const t = this.clock.arrivalTime(at);
    return t === null ? NaN : t + this.halfTrip;
  }

  /**
   * A display frame (rAF callback with timestamp `vsync`) shows `frame`, newly drawn if `fresh`;
   * `room` is the room's own offset at its time when known now (a server frame is the room's
   * picture); `replica` says the picture is the replica's. Returns the entry's index.
   */
  displayFrame(at, vsync, frame, viewer, fresh, room, replica) {
    const applied = frame.input;
    const own = Boolean(applied) && applied.viewer === viewer && typeof applied.id === "number";
    const n = this.record.push(at, vsync, frame, own, fresh, room, this.present(at), replica);
    if (this.firstFrameAt === null) this.firstFrameAt = at;
    return n;
  }

  /**
   * While `paused` the page draws its own table (explore.js) and records nothing: those pictures
   * are not the room's, so they are neither right nor wrong; the first entry after is a reference.
   */
  pause(paused) { if (paused) this.record.pause(); }

  /** The confirmed engine computed the room's offset at entry `n`'s room time. */
  confirm(n, offset) {
    if (Number.isNaN(offset)) this.record.abandon(n); else this.record.confirm(n, offset);
  }

  /** An input message went out (its `t` is the event's timestamp). */
  inputSent(message) { this.sent.sent(message.id, message.t, message.kind); }

  refused(id) { if (typeof id === "number") this.sent.refused(id); }

  connectionReset() {
    this.sent.reset();
    this.clock.reset();
  }

  /** Measures over display frames with index in [from, to), with the pointer inputs sent. */
  measuresOf(from, to) {
    return pictureMeasures(this.record.since(from, to), this.sent.inputs());
  }

  /** Recomputes the overlay's figures (a couple of times a second, not per frame). */
  update() {
    const to = this.record.total;
    const from = Math.max(this.record.first, to - MEASURE_WINDOW);
    // Kept with the figures: pictures are confirmed after they are drawn, so the record read
    // later no longer holds what these figures were computed from.
    const entries = this.record.since(from, to), sent = this.sent.inputs();
    const figures = pictureMeasures(entries, sent);
    this.latest = { from, to, ...figures, text: overlayText(figures), entries, sent };
    return this.latest;
  }

  /** Shows the latest figures (the text computed with them). */
  show(judderElement, photonElement) {
    if (!this.latest) return;
    judderElement.textContent = this.latest.text.judder;
    photonElement.textContent = this.latest.text.photon;
  }

  /** The page API tests use (window.scrollcast): plain objects only. */
  api() {
    return {
      /** The last `count` display frames (all held when omitted), oldest first. */
      drawnRecord: (count) => this.record.entries(count),
      /** Display frames with index in [from, to), oldest first. */
      drawnSince: (from, to) => this.record.since(from, to),
      /** The measures (as the overlay computes them) over display frames with index in [from, to). */
      measuresOf: (from, to) => this.measuresOf(from, to ?? this.record.total),
      /** The pointer inputs sent (input-to-picture's starting points). */
      sentPointerInputs: () => this.sent.inputs(),
      /** Page load to first frame: ms from navigation start to the first display frame showing one. */
      firstFrameAt: () => this.firstFrameAt,
    };
  }
}
