// What a viewer sees, measured: the drawn record, judder and the driver's input-to-photon, kept
// by the page and shown on the overlay. main.js only feeds this; the arithmetic lives in the pure
// modules beside it. Definitions: docs/measures.md.

import { DrawnRecord } from "./drawn-record.js";
import { judder } from "./judder.js";
import { InputToPhoton } from "./input-to-photon.js";

/** Display frames the overlay's judder covers: the last 600 recorded (10 s of motion at 60 Hz). */
export const JUDDER_WINDOW = 600;

export class PageMeasures {
  constructor() {
    this.record = new DrawnRecord();
    this.photon = new InputToPhoton();
    this.judder = { judderPct: null, motionFrames: 0, repeats: 0, skips: 0, from: 0, to: 0 };
    this.inputToPhoton = { p50: null, p99: null, samples: 0 };
    /** performance.now() (ms since navigation began) of the first display frame with a server frame. */
    this.firstFrameAt = null;
  }

  /** A display frame (rAF callback with timestamp `vsync`) shows `frame`, newly drawn if `fresh`. */
  displayFrame(at, vsync, frame, viewer, fresh) {
    const applied = frame.input;
    const own = Boolean(applied) && applied.viewer === viewer && typeof applied.id === "number";
    this.record.push(at, vsync, frame, own, fresh);
    if (this.firstFrameAt === null) this.firstFrameAt = at;
    if (own && fresh) this.photon.shown(at, applied.id);
  }

  /** An input message went out (its `t` is the event's timestamp). */
  inputSent(message) { this.photon.sent(message.id, message.t, message.kind); }

  refused(id) { if (typeof id === "number") this.photon.refused(id); }

  connectionReset() { this.photon.reset(); }

  /** Recomputes the overlay's figures (called a couple of times a second, not per frame). */
  update() {
    const to = this.record.total;
    const from = Math.max(this.record.first, to - JUDDER_WINDOW);
    this.judder = { ...judder(this.record.since(from, to)), from, to };
    this.inputToPhoton = this.photon.summary();
  }

  /** The overlay line: judder % and input-to-photon p50/p99. */
  show(judderElement, photonElement) {
    const j = this.judder.judderPct;
    judderElement.textContent = j == null ? "judder –" : `judder ${j.toFixed(1)} %`;
    const { p50, p99 } = this.inputToPhoton;
    photonElement.textContent = p50 == null ? "input→photon –" : `input→photon ${Math.round(p50)} ms (p99 ${Math.round(p99)} ms)`;
  }

  /** The page API tests use (window.scrollcast): plain objects only. */
  api() {
    return {
      /** The last `count` display frames (all held when omitted), oldest first. */
      drawnRecord: (count) => this.record.entries(count),
      /** Display frames with index in [from, to), oldest first. */
      drawnSince: (from, to) => this.record.since(from, to),
      /** Judder (as the overlay computes it) over display frames with index in [from, to). */
      judderOf: (from, to) => judder(this.record.since(from, to)),
      /** The input-to-photon samples in the window and the pointer inputs sent. */
      inputToPhotonSamples: () => this.photon.samples(),
      sentPointerInputs: () => this.photon.sentInputs(),
      /** Page load to first frame: ms from navigation start to the first display frame showing one. */
      firstFrameAt: () => this.firstFrameAt,
    };
  }
}
