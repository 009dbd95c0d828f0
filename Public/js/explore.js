// Explore on your own, follow again (docs/design.md, "Explore and follow"). Exploring, this
// page's input goes to a table of its own (replica/explorer.js, the room's engine in
// WebAssembly, started at rest from the room's picture): nothing is sent, nobody else's picture
// changes. Following again, the picture eases to the room's for EASE_MS of room time, then the
// page draws the room's picture as before. Input during the ease is dropped (a gesture begun
// then is ignored to its end): the eased picture is not the room's table, so a finger on it
// would land on rows the room does not show there. A call back (the server's `follow`) or a
// Follow in the middle of a gesture cancels that gesture in the explorer.

import { Explorer } from "./replica/explorer.js";

/** How long the picture takes to ease back to the room's, in room time (ms). */
export const EASE_MS = 400;

/** The ease's curve, 0…1 → 0…1: cubic in and out, monotone (every step goes toward the room). */
export function easeInOut(p) {
  return p < 0.5 ? 4 * p * p * p : 1 - ((2 - 2 * p) ** 3) / 2;
}

const OFF_REASONS = {
  "?replica=off": "this page runs without its own engine (?replica=off)",
  "no WebAssembly": "this browser has no WebAssembly to run the table on",
};

export class PageExplore {
  /**
   * `page` is the ScrollcastPage (its state, replica, sharing, input, sender, controls and
   * picture); `offReason` why it has no replica (replica/setup.js), or null.
   */
  constructor(page, offReason) {
    this.page = page;
    this.offReason = offReason;
    this.mode = "follow";      // "follow", "explore" or "ease" (back to the room's picture)
    this.explorer = null;      // Explorer, once its engine instance is made
    this.making = null;
    this.started = false;      // the explorer holds this exploration's table
    this.failure = null;       // the explorer's engine failed: why
    this.lastRoomTime = -Infinity;
    this.lastEased = null;     // the ease's latest picture
    this.button = document.getElementById("view-toggle");
    // Why the control is off, beside it (kept for a page started again after a destroy()).
    this.hint = document.getElementById("explore-reason") ?? document.createElement("span");
    this.hint.className = "hint";
    this.hint.id = "explore-reason";
    this.button.after(this.hint);
    page.state.explore = { mode: "follow", available: false, reason: null, inputs: 0, explorations: 0, easeMs: EASE_MS, ease: null };
    this.render();
  }

  /** Why this page cannot explore now, or null when it can. */
  unavailable() {
    const { replica, state } = this.page;
    if (!replica) return OFF_REASONS[this.offReason] ?? this.offReason;
    if (this.failure) return `its own table failed (${this.failure})`;
    if (!replica.enabled) return `its engine cannot run (${replica.report().error ?? "stopped"})`;
    if (!replica.instantiate) return "its engine is still loading";
    if (!replica.session || !state.lastFrame) return "not in the room yet";
    return null;
  }

  /** Makes the explorer's engine instance ahead of the first exploration (the replica started). */
  prepare() {
    const { replica } = this.page;
    if (this.explorer || this.making || !replica?.instantiate) return this.making;
    this.making = replica.instantiate()
      .then((engine) => { this.explorer = new Explorer(engine); })
      .catch((error) => { this.failure = String(error); })
      .finally(() => { this.making = null; this.render(); });
    return this.making;
  }

  toggle() { return this.mode === "explore" ? this.follow() : this.explore(); }

  /** Leaves the room's picture: `view explore`, and this page's input drives its own table. */
  explore() {
    const why = this.unavailable();
    if (why) {
      this.page.controls.toast(`You cannot explore: ${why}.`);
      return false;
    }
    if (this.mode === "explore") return true;
    this.#endGesture();   // a gesture streaming to the room ends there first (the server refuses `view` mid-gesture)
    if (!this.page.sharing.setView("explore")) return false;
    this.#setMode("explore");
    this.started = false;
    this.page.state.explore.explorations += 1;
    this.#start();
    return true;
  }

  /** Back to the room: `view follow`, and the picture eases to the room's. `by` called everyone back. */
  follow(by = null) {
    if (this.mode !== "explore") return false;
    this.#endGesture();   // in the explorer: the rest of the gesture is never the room's
    this.page.sharing.setView("follow");
    const from = this.page.state.lastFrame?.offset;
    this.page.state.explore.ease = { by, from, t0: null, end: null, pictures: [] };
    this.lastEased = null;
    this.#setMode(this.started && Number.isFinite(from) ? "ease" : "follow");
    return true;
  }

  /** An input of this page (InputSender's message): true when it is not for the room (taken or dropped). */
  takes(message) {
    if (this.mode === "follow") return false;
    if (this.mode === "explore" && this.started) {
      try {
        if (this.explorer.input(message)) this.page.state.explore.inputs += 1;
      } catch (error) {
        this.#failed(error);
      }
    } else if (message.kind === "pointerDown") {
      this.page.input.abandonGesture();   // begun during the ease: ignored to its end
    }
    return true;
  }

  /** Whether the page draws this page's own pictures (exploring, or easing back). */
  get drawing() { return this.mode !== "follow"; }

  /**
   * The picture for the display frame at page time `vsync`: the explorer's, or the ease's toward
   * `roomPicture()` (the picture the page would draw following). null once the ease is over.
   */
  frameAt(vsync, roomPicture) {
    try {
      if (this.mode === "explore") return this.started ? this.explorer.frameAt(vsync) : this.page.state.lastFrame;
      if (this.mode === "ease") return this.#eased(vsync, roomPicture());
    } catch (error) {
      this.#failed(error);
    }
    return null;
  }

  #eased(vsync, room) {
    const ease = this.page.state.explore.ease;
    const t = this.#roomTime(vsync);
    // Room time stood still (a second callback at one vsync, the clock's estimate stepping back): the same picture.
    if (this.lastEased && t <= ease.pictures.at(-1).t) return this.lastEased;
    if (ease.t0 === null) ease.t0 = t;
    const p = (t - ease.t0) / EASE_MS;
    if (!room || p >= 1) {
      ease.end = { t, vsync, offset: room?.offset ?? null };
      this.#setMode("follow");
      return null;
    }
    const offset = ease.from + (room.offset - ease.from) * easeInOut(p);
    const frame = this.explorer.pictureAt(this.page.state.order, room.viewport, offset);
    ease.pictures.push({ t, vsync, offset: frame?.offset ?? null, target: room.offset });
    this.lastEased = frame;
    return frame;
  }

  /** The room's present as this page's clock reads it (the replica's arrival clock), never going back. */
  #roomTime(vsync) {
    const t = this.page.replica?.clock.arrivalTime(vsync) ?? vsync;
    this.lastRoomTime = Math.max(this.lastRoomTime, t);
    return this.lastRoomTime;
  }

  /**
   * A refusal. Of our `view explore` (input null: the server does not count us as exploring, e.g.
   * a cluster's owner out of reach for a moment): follow again, and say why. Of an input
   * (`exploring`): the server missed our `view follow`, so say it again. True when the refusal
   * was of our `view`.
   */
  refused(message) {
    const { sharing, controls } = this.page;
    if (message.input == null && this.mode === "explore" && sharing.lastSent?.type === "view") {
      controls.toast(`Exploring refused: ${message.reason}`);
      this.follow();
      this.render();
      return true;
    }
    if (message.code === "exploring" && this.mode !== "explore") sharing.setView("follow");
    return false;
  }

  /** Shows the control: the toggle disabled with the reason when this page cannot explore. */
  render() {
    const why = this.mode === "follow" ? this.unavailable() : null;
    const s = this.page.state.explore;
    s.available = why === null;
    s.reason = why;
    this.button.disabled = why !== null;
    this.button.title = why ? `You cannot explore: ${why}` : "Leave the room's picture and scroll a table of your own; nobody else sees it";
    this.hint.textContent = why && why !== "not in the room yet" ? `Exploring is off: ${why}.` : "";
  }

  #start() {
    if (!this.explorer) {
      this.prepare()?.then(() => { if (this.mode === "explore" && !this.started && this.explorer) this.#start(); });
      return;
    }
    const { replica, state } = this.page;
    const picture = state.lastFrame;
    try {
      if (!this.explorer.start(replica.session, state.order, picture.viewport, picture.offset, replica.reducedMotion)) {
        return this.#failed("the engine refused the room's table");
      }
    } catch (error) {
      return this.#failed(error);
    }
    this.started = true;
    this.page.picture.schedule();
  }

  /** Ends this page's gesture where it streams now (the room, or the explorer), and ignores its rest. */
  #endGesture() {
    const { input, sender } = this.page;
    if (input.streaming()) sender.sendNow("pointerCancel", {}, performance.now());
    input.abandonGesture();
  }

  /** The explorer's engine failed (a trap): back to the room's picture at once, and no exploring here. */
  #failed(error) {
    this.failure = String(error);
    this.explorer = null;
    this.started = false;
    if (this.mode === "explore") this.page.sharing.setView("follow");
    this.#setMode("follow");
  }

  #setMode(mode) {
    this.mode = mode;
    this.page.state.explore.mode = mode;
    this.page.measures.pause(mode !== "follow");
    this.render();
    this.page.picture.schedule();
  }
}
