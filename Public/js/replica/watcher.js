// A watcher draws only what it knows (docs/wasm.md, "Watchers draw what they know"): a page that
// has not driven draws the room's picture from an engine instance of its own that applies the
// room's changes in time order, at a clock (WatchClock) that stays behind the room's complete
// history. The server says how far that history is complete (docs/protocol.md, "The complete
// history"): frames' `t`, `applied.complete`, `beat`. Without the server's word (an older
// server), or once the page drives, the replica draws as before.

import { ConfirmedEngine } from "./confirmed-engine.js";
import { WatchClock } from "./watch-clock.js";
import { WireV2Decoder } from "../wire-v2.js";

export class Watcher {
  /**
   * `engine` is a ReplicaEngine instance of its own; `wake()` asks the page for a display frame
   * (the page draws only while the picture animates or a message comes).
   */
  constructor(engine, wake = () => {}) {
    this.wake = wake;
    this.wakeTimer = null;
    this.follower = new ConfirmedEngine(engine, () => {});
    this.clock = new WatchClock();
    this.decoder = new WireV2Decoder();
    this.marks = false;   // the server tells this connection how far the history is complete
    this.lastTime = null;
    this.still = false;   // the last picture drawn does not move with time
  }

  get running() { return this.follower.running; }

  /** A new connection (its join's `roundTrip`, ms, when known): the server says again whether it tells the marks. */
  reset(roundTrip = null) {
    this.stop();
    this.clock.reset(roundTrip);
    this.marks = false;
  }

  /** Starts with the replica, from the same frame at rest (ConfirmedEngine.start's arguments). */
  start(rest) {
    this.decoder.reset();
    this.still = false;
    return this.follower.start(rest);
  }

  stop() {
    this.follower.stop();
    clearTimeout(this.wakeTimer);
  }

  /** A change the room applied (not cause `state`). */
  applied(message) { this.follower.applied(message); }

  /**
   * Every change at or before room time `mark` has been sent (a beat or an `applied` with
   * `complete`, `said` true: these prove the server tells marks; or a frame's `t`, a mark only
   * once it does). `moving`: the room is in motion there (an animating frame, a change), or
   * null when the message does not say (a beat).
   */
  marked(mark, at, said = true, moving = null) {
    if (said) this.marks = true;
    if (this.marks) this.clock.marked(mark, at, moving);
  }

  /** The watcher's picture for the display frame at page time `now`, decoded; null when it does not draw. */
  frameAt(now) {
    if (!this.marks || !this.running) return null;
    const time = this.clock.at(now, this.still, this.follower.nextChange);
    if (time === null) return null;
    const result = this.follower.drawAt(time);
    if (!result) return null;
    if (result.texts) this.decoder.decode(result.texts.slice().buffer);
    const frame = this.decoder.decode(result.bytes.slice().buffer);
    this.still = !result.isAnimating;
    this.lastTime = time;
    // A still picture before a change that has come: draw again when the clock reaches it.
    const due = this.follower.nextChange;
    if (this.still && Number.isFinite(due)) {
      clearTimeout(this.wakeTimer);
      this.wakeTimer = setTimeout(() => this.wake(), Math.max(0, due - time));
    }
    return frame;
  }
}
