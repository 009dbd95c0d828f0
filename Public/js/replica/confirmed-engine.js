// The confirmed engine (docs/measures.md, "Wrong pictures"): a second instance of the room's
// engine that follows only what the room has confirmed. The replica draws pictures from what it
// knows or predicts; once the room's history up to a picture's room time is complete, this engine
// computes the room's own picture at that time, and the drawn record keeps both. It shares no
// state with the replica, so a wrong prediction, a skewed clock or a dropped input shows as a
// wrong picture instead of being checked against itself.

import { applyChange, Result } from "./engine.js";

/** Pictures and `applied` changes held while waiting for the history to complete (then it stops). */
const HELD_LIMIT = 20000;

export class ConfirmedEngine {
  /**
   * `engine` is a ReplicaEngine of its own; `confirm(n, offset)` receives each judged picture,
   * and NaN for one it will never judge.
   */
  constructor(engine, confirm) {
    this.engine = engine;
    this.confirm = confirm;
    this.running = false;
    this.sceneName = null;
    this.time = -Infinity;    // room time of the state: every change at or before it is applied
    this.changes = [];        // `applied` changes not yet in the state, in the room's order
    this.pictures = [];       // {n, t}: drawn pictures not judged yet, in drawing order
    this.stats = { judged: 0, unjudgeable: 0 };
  }

  /**
   * Starts from the room at rest as the replica does: scene `sceneName` with `order`, the frame's
   * `viewport`, exact resting `offset`, reduced motion, and the input that frame names, at room
   * time `t`; or, given `state` (engine state bytes of the inputs stream), from exactly those.
   */
  start({ sceneName, order, viewport, offset, reducedMotion, input, t, state = null }) {
    this.running = false;
    try {
      if (this.engine.create(sceneName) !== Result.applied) return false;
      if (state) {   // the inputs stream's snapshot: the engine's state bytes, mid-motion included
        if (this.engine.restoreState(state) !== Result.applied) return false;
      } else {
        if (this.engine.restore(order, viewport, offset) !== Result.applied) return false;
        this.engine.setReducedMotion(reducedMotion);
      }
      this.engine.nameInput(input ?? null);
    } catch (error) {
      return false;
    }
    this.time = t;
    this.changes = [];
    this.pictures = [];
    this.running = true;
    return true;
  }

  /** Judging ends (a mismatch, a resume, a disabled replica): pictures not judged stay so. */
  stop() {
    this.running = false;
    this.changes = [];
    for (const { n } of this.pictures) this.confirm(n, NaN);
    this.pictures = [];
  }

  /** A change the room applied (an `applied` message other than cause `state`). */
  applied(message) {
    if (!this.running) return;
    this.changes.push(message);
    if (this.changes.length > HELD_LIMIT) this.stop();
  }

  /** Display frame `n` drew the replica's picture at room time `t`. */
  picture(n, t) {
    if (!this.running) return this.confirm(n, NaN);
    this.pictures.push({ n, t });
    if (this.pictures.length > HELD_LIMIT) this.stop();
  }

  /**
   * The room's history is complete up to room time `h` (every change at or before it has come):
   * judges every picture at or before `h`.
   */
  completeUpTo(h) {
    if (!this.running) return;
    try {
      while (this.pictures.length && this.pictures[0].t <= h) {
        const { n, t } = this.pictures.shift();
        if (t < this.time) { this.stats.unjudgeable += 1; this.confirm(n, NaN); continue; }   // the state is past it
        while (this.changes.length && this.changes[0].t <= t) this.#apply(this.changes.shift());
        this.time = t;
        this.confirm(n, this.engine.frame(t, 0, 0).contentOffset);
        this.stats.judged += 1;
      }
    } catch (error) {
      this.stop();
    }
  }

  /**
   * The room's picture at room time `t` drawn from what has come so far (the watcher's picture):
   * every change at or before `t` applied, and any that came late (before the time already
   * drawn: a picture drawn past the complete history was a guess, which the measures see).
   * Returns the engine's frame (bytes valid until its next call), or null once stopped.
   */
  drawAt(t) {
    if (!this.running) return null;
    try {
      while (this.changes.length && (this.changes[0].t <= t || this.changes[0].t <= this.time)) {
        this.#apply(this.changes.shift());
      }
      this.time = Math.max(this.time, t);
      return this.engine.frame(t, 0, 0);
    } catch (error) {
      this.stop();
      return null;
    }
  }

  /** Room time of the next change not applied yet (Infinity when none has come). */
  get nextChange() { return this.changes.length ? this.changes[0].t : Infinity; }

  #apply(message) { applyChange(this.engine, message); }
}
