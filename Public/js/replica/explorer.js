// A table of this viewer's own (docs/design.md, "Explore and follow"): an engine instance of its
// own, started at rest from the room's picture, that takes this page's inputs while it explores,
// and draws the room's table at any offset for the ease back. It computes nothing itself: every
// number comes from the Swift engine in WebAssembly, as the replica's do.

import { inputNumbers, Result } from "./engine.js";
import { WireV2Decoder } from "../wire-v2.js";

/** The viewer the explorer's frames name in `input`: never a viewer id of the room's. */
const EXPLORER = "explorer";

export class Explorer {
  /** `engine` is a ReplicaEngine of its own (the replica's module, another instance). */
  constructor(engine) {
    this.engine = engine;
    this.decoder = new WireV2Decoder();
    this.scene = null;        // the scene name the engine holds
    this.lastTime = 0;        // page time of the latest input applied (the engine's times never go back)
    this.pressed = false;     // a pointer gesture is open in the explorer's table
    this.seq = 0;
  }

  /**
   * Starts at rest from the room's picture: `session` is the replica's ({sceneName, bodies}),
   * `order` the room's row order, `viewport` and `offset` the picture's. False when the engine
   * refuses (then the page cannot explore).
   */
  start(session, order, viewport, offset, reducedMotion) {
    if (this.scene !== session.sceneName) {
      if (this.engine.create(session.sceneName) !== Result.applied) return false;
      session.bodies.forEach((body, i) => this.engine.serverTexts(body, i === 0));
      this.decoder.reset();
      this.scene = session.sceneName;
    }
    if (this.engine.restore(order, viewport, offset) !== Result.applied) return false;
    this.engine.setReducedMotion(reducedMotion);
    this.engine.nameInput(null);
    this.lastTime = 0;
    this.pressed = false;
    return true;
  }

  /**
   * One input of this page (a protocol input message), at its own page time `t`. A gesture the
   * page stopped streaming (a new connection) is cancelled here when the next one begins.
   */
  input(message) {
    const numbers = inputNumbers(message);
    if (!numbers) return false;
    const time = Math.max(this.lastTime, message.t);
    if (message.kind === "pointerDown" && this.pressed) this.#apply(inputNumbers({ kind: "pointerCancel" }), message.id, time);
    const applied = this.#apply(numbers, message.id, time);
    if (applied && message.kind.startsWith("pointer")) this.pressed = message.kind === "pointerDown" || message.kind === "pointerMove";
    return applied;
  }

  #apply(numbers, id, time) {
    const { code } = this.engine.apply(numbers, id, time, EXPLORER);
    if (code >= 0) this.lastTime = time;
    return code >= 0;
  }

  /** The explorer's frame at page time `now`, decoded (never before its latest input). */
  frameAt(now) {
    return this.#decode(this.engine.frame(Math.max(now, this.lastTime), ++this.seq, 0));
  }

  /**
   * The room's table in `order` and `viewport` at rest at `offset` (clamped to the table's range,
   * as the engine does): a picture of the ease back. It replaces the explorer's own table.
   */
  pictureAt(order, viewport, offset) {
    if (this.engine.restore(order, viewport, offset) !== Result.applied) return null;
    this.lastTime = 0;
    this.pressed = false;
    return this.#decode(this.engine.frame(0, ++this.seq, 0));
  }

  #decode(result) {
    if (result.texts) this.decoder.decode(result.texts.slice().buffer);
    return this.decoder.decode(result.bytes.slice().buffer);
  }
}
