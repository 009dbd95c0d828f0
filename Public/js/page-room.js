// What the page makes of its room's messages (docs/protocol.md): the scene and row order from a
// snapshot, kept current by the rowMoved, frames, presence and refusals that follow, and who may
// drive. The row order lives here alone: the replica reads the same arrays, so a row move is
// spliced once (page-state.js, moveRow).

import { moveRow } from "./page-state.js";
import { storeKey } from "./driving.js";

export class PageRoom {
  /** `page` is the ScrollcastPage whose parts (state, connection, replica, picture…) it updates. */
  constructor(page) {
    this.page = page;
    this.scene = null;             // the snapshot's scene (window.scrollcast.scene), rows kept in the room's order
    this.lastOwnAppliedId = null;  // our newest input id a frame named
  }

  /** One message from the connection, before sharing.js reads it. */
  receive(message) {
    const { replica, measures, state } = this.page;
    const now = message.arrivedAt ?? performance.now();   // when it came (connection.js)
    if (["frame", "applied", "beat"].includes(message.type)) measures.arrived(message.t, now);
    switch (message.type) {
      case "snapshot":
        this.#snapshot(message);
        return this.page.stream?.snapshot(message, now);
      case "resumed": return this.#resumed(message);
      case "frame": return this.#frame(message);
      case "presence": return this.#presence(message.viewers, message.driver);
      case "rowMoved": return this.#rowMoved(message);
      case "applied": replica?.applied(message, now); return this.page.picture.schedule();
      case "beat":
        replica?.beat(message, now);
        return this.page.stream?.beat(message);
      case "batch":
        this.page.stream?.batch(message, now);
        return this.page.picture.schedule();
      case "held": return replica?.clock.inputHeld(message);
      case "pong":   // the link as a ping timed it: both clocks' starts (docs/wasm.md, "The clock")
        measures.pinged(this.page.connection.ping.best);
        replica?.clock.pinged(this.page.connection.ping.best);
        return replica?.watcher?.clock.pinged(this.page.connection.ping.best);
      case "refused": return this.#refused(message);
      case "error":
        state.errors.push(String(message.message ?? ""));
        return undefined;
      default:
        return undefined;   // newer servers may add types; ignore them
    }
  }

  #snapshot(message) {
    const { state, replica, connection, input, measures, renderer, controls, picture } = this.page;
    const scene = message.scene ?? {};
    this.scene = scene;
    state.order = (scene.sections ?? []).map((section) => [...(section.rows ?? [])]);
    replica?.snapshot(message, connection.joinRoundTrip, state.order);
    state.snapshots += 1;
    state.viewer = message.viewer ?? null;
    state.rowMoveVersion = 0;
    state.lastReceivedSeq = null;
    input.connectionReset();
    measures.connectionReset();
    measures.roundTrip(connection.joinRoundTrip);
    state.sceneName = typeof message.sceneName === "string" ? message.sceneName : "demo";
    renderer.setScene(scene, navTitle(state.sceneName, message.room ?? state.room));
    state.images = renderer.imageStatus();
    controls.setScene(scene, state.sceneName);
    this.#presence(message.viewers, message.driver);
    picture.layout();
    this.#driverKey(message.driverKey, message.locked === true);
    this.#sayReducedMotion();
    if (message.frame) this.#frame(message.frame);
  }

  /** Back where we were: the scene, order and picture stay; the rowMoved and frame that follow bring them up to date. */
  #resumed(message) {
    const { state, replica, connection, input, measures } = this.page;
    if (!this.page.stream?.resumed(message)) replica?.resumed(message);
    state.resumes += 1;
    state.viewer = message.viewer ?? null;
    input.connectionReset();
    measures.connectionReset();
    measures.roundTrip(connection.joinRoundTrip);
    this.#presence(message.viewers, message.driver);
    this.#driverKey(message.driverKey, message.locked === true);
    this.#sayReducedMotion();
  }

  /** A new connection does not know this viewer asked for reduced motion: say it again. */
  #sayReducedMotion() {
    if (this.page.state.reducedMotion) this.page.sender.sendNow("reducedMotion", { on: true }, performance.now());
  }

  /**
   * The snapshot's driverKey says this viewer may drive a locked room. Reconnects send it, and the
   * tab remembers it across a reload. Without one, `locked` says whether this viewer only watches;
   * if we sent a key and the room is locked, it was not accepted.
   */
  #driverKey(key, locked) {
    const { state, connection, controls } = this.page;
    if (typeof key === "string" && key) {
      connection.driverKey = key;
      connection.lock = true;
      storeKey(state.room, key);
      state.sentDriverKey = true;
      state.driveMode = "key";
      controls.setDriving("key", key);
    } else {
      if (connection.driverKey) storeKey(state.room, null);   // stale or wrong: do not offer it again on reload
      state.driveMode = !locked ? "open" : connection.driverKey ? "rejected" : "watch";
      controls.setDriving(state.driveMode);
    }
  }

  #frame(frame) {
    const { state, replica, controls, picture } = this.page;
    if (typeof frame.seq === "number" && state.lastReceivedSeq !== null) {
      if (frame.seq <= state.lastReceivedSeq) return;   // stale or duplicate
      state.seqGaps += frame.seq - state.lastReceivedSeq - 1;
    }
    if (typeof frame.seq === "number") state.lastReceivedSeq = frame.seq;
    const applied = frame.input;
    if (applied && applied.viewer === state.viewer && applied.id !== this.lastOwnAppliedId) {
      this.lastOwnAppliedId = applied.id;
      state.ownInputsApplied += 1;
    }
    state.framesReceived += 1;
    // With the replica running, the server's frame is checked, not drawn (on a mismatch it is).
    const verdict = replica?.serverFrame(frame, frame.arrivedAt ?? performance.now());
    if (verdict === "identical") {
      if (frame.animating === false) controls.announcePosition(frame);
      picture.schedule();
      return;
    }
    replica?.continueNumbering(frame.seq);
    picture.show(frame);
  }

  #presence(viewers, driver) {
    const { state, controls } = this.page;
    state.viewers = Number.isFinite(viewers) ? viewers : state.viewers;
    state.driver = driver ?? null;
    controls.setPresence({ viewers: state.viewers, driver: state.driver, me: state.viewer });
  }

  /** The one place a row move is applied: the page's order, which the replica shares. */
  #rowMoved(move) {
    const { state, controls } = this.page;
    if (!moveRow(state.order, move)) return;
    state.rowMoves += 1;
    state.rowMoveVersion = Number.isFinite(move.version) ? move.version : state.rowMoveVersion + 1;
    if (this.scene?.sections) {
      this.scene.sections.forEach((section, i) => { section.rows = [...state.order[i]]; });
      controls.setScene(this.scene, state.sceneName);
    }
  }

  #refused(message) {
    const { state, input, replica, measures, controls } = this.page;
    state.refusedCount += 1;
    state.lastRefused = message;
    input.refused(message.input ?? null);
    replica?.refused(message.input);
    measures.refused(message.input);
    if (this.page.explore.refused(message)) return;   // our `view`: explore.js says why
    if (message.code === "locked" && state.driveMode !== "key") {
      state.driveMode = "watch";
      controls.setDriving("watch");
    }
    if (message.code === "unavailable") {
      // The server could not save a row move (disk full or read-only): the row went back; not this viewer's fault.
      controls.toast("Moving rows is paused: the server can't save moves right now. Scrolling still works.");
      return;
    }
    const reason = message.reason || "Someone else is driving; try again when their gesture ends.";
    controls.toast(`Input refused: ${reason}`);
  }
}

/** The navigation bar's title: the seed's own "Demo Table" for its table, else the room. */
function navTitle(sceneName, roomName) {
  return sceneName === "seed-table" ? "Demo Table" : `Scrollcast · ${roomName}`;
}
