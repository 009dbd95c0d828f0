// The page's picture: one animation-frame loop drawing the newest server frame (never a queue),
// or the replica's picture at the room time of each display frame, or the viewer's own table
// while it explores (explore.js), and the phone frame fitted to the stage. The page calls requestAnimationFrame here and nowhere else, so stop() ends all of
// its drawing at once.

const OVERLAY_GAP_PX = 2;   // between the phone and the stats line below it

export class PagePicture {
  /**
   * `renderer` draws (draw.js); `state` is the page's state; `replica` the page's PageReplica or
   * null; `stats`, `controls` and `measures` hear of each picture; `stage`, `phone` and `canvas`
   * are the elements laid out; `explore` (PageExplore, set once made) draws while the viewer explores.
   */
  constructor({ renderer, state, replica, stats, controls, measures, stage, phone, canvas, overlay = null }) {
    Object.assign(this, { renderer, state, replica, stats, controls, measures, stage, phone, canvas, overlay });
    this.overlayClear = { width: 0, height: 0 };   // the stats line's tallest at this stage width
    this.explore = null;
    this.pending = null;        // newest server frame not yet drawn
    this.redrawWanted = false;  // something besides a new frame changed the picture
    this.handle = 0;            // the animation frame asked for, 0 when none
    this.laidOut = null;        // the viewport size the phone frame was last fitted to
    this.replicaTime = null;    // the room time of the replica's picture on screen (null: a server frame's)
    this.replicaStart = null;   // the timer starting a waiting replica after a picture
    this.stopped = false;
  }

  /** A server frame to draw at the next display frame; a newer one replaces it. */
  show(frame) {
    if (this.pending) this.state.framesSkipped += 1;
    this.pending = frame;
    this.schedule();
  }

  /** Something besides a frame changed the picture (an image loaded, the waiting text). */
  redraw() {
    this.redrawWanted = true;
    this.schedule();
  }

  /** Asks for the next display frame (once; never after stop()). */
  schedule() {
    if (this.handle || this.stopped) return;
    this.handle = requestAnimationFrame((vsync) => this.#draw(vsync));
  }

  /** The page is destroyed: no display frame is asked for or drawn again. */
  stop() {
    this.stopped = true;
    cancelAnimationFrame(this.handle);
    this.handle = 0;
    clearTimeout(this.replicaStart);
  }

  #draw(vsync) {
    this.handle = 0;
    if (this.explore?.drawing && this.#drawOwn(vsync)) return;
    const { state, replica, renderer } = this;
    const now = performance.now();
    // The replica's picture at this display frame's room time; else the server's newest (also in
    // place of a picture a replica that just stopped left on screen).
    const own = replica?.running ? replica.frameAt(vsync) : null;
    const frame = own ?? this.pending ?? (this.replicaTime !== null ? replica.lastServerFrame : null);
    this.pending = null;
    if (frame) {
      this.replicaTime = own ? replica.lastDrawTime : null;
      renderer.draw(frame);
      state.lastFrame = frame;
      state.framesDrawn += 1;
      this.stats.frameDrawn(frame, now);
      if (frame.animating === false) this.controls.announcePosition(frame);
      this.#fit(frame);
    } else if (this.redrawWanted) {
      if (state.lastFrame) renderer.draw(state.lastFrame);
      else renderer.drawWaiting(state.joinRefused ? "Join refused" : state.connected ? "Joining…" : "Connecting…");
    }
    this.redrawWanted = false;
    // A replica waiting to start does so after this picture, in a task of its own (never delaying it).
    if (replica && !replica.running && frame && this.replicaStart === null) {
      this.replicaStart = setTimeout(() => { this.replicaStart = null; replica.startIfDue(); }, 0);
    }
    if (state.lastFrame) {
      // A server frame is the room's own picture; the replica's is judged once its history is complete.
      const room = this.replicaTime === null ? state.lastFrame.offset : NaN;
      const n = this.measures.displayFrame(now, vsync, state.lastFrame, state.viewer, frame !== null, room, this.replicaTime !== null);
      if (this.replicaTime !== null) replica.pictureDrawn(n, this.replicaTime);
      // In motion every display frame is recorded: loop until a frame says motion stopped (or the link is lost).
      if (state.lastFrame.animating === true && state.joined) this.schedule();
    }
  }

  /**
   * The viewer's own picture (exploring, or easing back to the room's): drawn, never recorded
   * (docs/measures.md, "Exploring"). False once the ease is over: the room's picture is drawn.
   */
  #drawOwn(vsync) {
    const { replica, state } = this;
    // Following, the page would draw this: the replica's picture, else the newest server frame.
    const room = () => (replica.running ? replica.frameAt(vsync) : null) ?? replica.lastServerFrame;
    const frame = this.explore.frameAt(vsync, room);
    if (!frame) {
      if (!replica.running) this.pending ??= replica.lastServerFrame;
      this.replicaTime = null;
      return false;
    }
    this.pending = null;
    this.replicaTime = null;
    this.renderer.draw(frame);
    state.lastFrame = frame;
    state.framesDrawn += 1;
    this.stats.frameDrawn(frame, performance.now());
    this.#fit(frame);
    // The room's replica starts at its rest meanwhile, ready for the way back.
    if (!replica.running && this.replicaStart === null) {
      this.replicaStart = setTimeout(() => { this.replicaStart = null; replica.startIfDue(); }, 0);
    }
    if (frame.animating === true || this.explore.mode === "ease") this.schedule();
    return true;
  }

  #fit(frame) {
    const v = this.renderer.viewport(frame);
    if (!this.laidOut || v.width !== this.laidOut.width || v.height !== this.laidOut.height) this.layout();
  }

  /** Sizes the phone frame to the room's aspect ratio within the stage, and the canvas to match. */
  layout() {
    if (this.stopped) return;
    const { renderer, stage, state } = this;
    const viewport = renderer.viewport(state.lastFrame ?? this.pending);
    this.laidOut = { width: viewport.width, height: viewport.height };
    const box = stage.getBoundingClientRect();
    this.#clearOverlay(box.width);
    const style = getComputedStyle(stage);
    const availableW = box.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const availableH = box.height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    const scale = Math.max(0.1, Math.min(availableW / viewport.width, availableH / viewport.height));
    const width = Math.floor(viewport.width * scale);
    const height = Math.floor(viewport.height * scale);
    this.phone.style.width = `${width}px`;
    this.phone.style.height = `${height}px`;
    const dpr = window.devicePixelRatio || 1;
    renderer.resize(width, height, dpr);
    state.canvas = { cssWidth: width, cssHeight: height, dpr, width: this.canvas.width, height: this.canvas.height };
    this.redraw();
  }

  /**
   * The stats line sits in the stage's bottom padding, which holds one or two lines, but it wraps
   * to as many as the width needs (five on a 390 px phone, where it covered the table's last
   * row): the padding grows to the tallest it has been at this width, so the phone stays clear
   * of it and does not jump as its figures change.
   */
  #clearOverlay(width) {
    const { overlay, stage } = this;
    if (!overlay) return;
    if (width !== this.overlayClear.width) this.overlayClear = { width, height: 0 };
    const below = parseFloat(getComputedStyle(overlay).bottom) || 0;
    this.overlayClear.height = Math.max(this.overlayClear.height, overlay.offsetHeight + below + OVERLAY_GAP_PX);
    stage.style.paddingBottom = "";
    const padding = parseFloat(getComputedStyle(stage).paddingBottom);
    if (this.overlayClear.height > padding) stage.style.paddingBottom = `${this.overlayClear.height}px`;
  }

  /** Client (CSS px) coordinates of a viewport point (window.scrollcast.clientPoint: tests aim at rows). */
  clientPoint(x, y) {
    const rect = this.canvas.getBoundingClientRect();
    const { scale, left, top } = this.renderer.fit(this.renderer.viewport(this.state.lastFrame));
    return { x: rect.left + left + x * scale, y: rect.top + top + y * scale };
  }
}
