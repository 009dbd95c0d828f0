// A watcher draws only what it knows (docs/wasm.md, "Watchers draw what they know"): a page that
// has not driven draws the room's picture from an engine instance of its own that applies the
// room's changes in time order, at a clock (WatchClock) that stays behind the room's complete
// history. The server says how far that history is complete (docs/protocol.md, "The complete
// history"): frames' `t`, `applied.complete`, `beat`. Without the server's word (an older
// server), or once the page drives, the replica draws as before.

import { ConfirmedEngine } from "./confirmed-engine.js";
import { WatchClock } from "./room-clock.js";
import { WireV2Decoder } from "../wire-v2.js";

export class Watcher {
  /** `engine` is a ReplicaEngine instance of its own. */
  constructor(engine) {
    this.follower = new ConfirmedEngine(engine, () => {});
    this.clock = new WatchClock();
    this.decoder = new WireV2Decoder();
    this.marks = false;   // the server tells this connection how far the history is complete
    this.lastTime = null;
    this.still = false;   // the last picture drawn does not move with time
  }

  get running() { return this.follower.running; }

  /** A new connection: the server says again whether it tells the marks. */
  reset() {
    this.follower.stop();
    this.clock.reset();
    this.marks = false;
  }

  /** Starts with the replica, from the same frame at rest (ConfirmedEngine.start's arguments). */
  start(rest) {
    this.decoder.reset();
    this.still = false;
    return this.follower.start(rest);
  }

  stop() { this.follower.stop(); }

  /** A change the room applied (not cause `state`). */
  applied(message) { this.follower.applied(message); }

  /**
   * Every change at or before room time `mark` has been sent (a beat or an `applied` with
   * `complete`, `said` true: these prove the server tells marks; or a frame's `t`, a mark only
   * once it does).
   */
  marked(mark, at, said = true) {
    if (said) this.marks = true;
    if (this.marks) this.clock.marked(mark, at);
  }

  /** The watcher's picture for the display frame at page time `now`, decoded; null when it does not draw. */
  frameAt(now) {
    if (!this.marks || !this.running) return null;
    const stillUntil = this.still ? this.follower.nextChange : -Infinity;
    const time = this.clock.at(now, stillUntil);
    if (time === null) return null;
    const result = this.follower.drawAt(time);
    if (!result) return null;
    if (result.texts) this.decoder.decode(result.texts.slice().buffer);
    const frame = this.decoder.decode(result.bytes.slice().buffer);
    this.still = !result.isAnimating;
    this.lastTime = time;
    return frame;
  }
}
